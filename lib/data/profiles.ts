/** User profiles (written by the mobile reporting API); the subscription detail reads usage from them. */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AppError } from '../core/errors.js';
import type { GrantRecord } from '../domain/grant-decisions.js';
import { mergeProfileItems } from '../domain/user-activity.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { GRANT_ITEM_TYPE, toGrantRecord } from './grant-items.js';
import { newProfileFields } from './profile-fields.js';
import { updateExpression } from './update-expression.js';

export interface UsageStats {
  features_used: number;
  last_activity: string | null;
  total_sessions: number;
}

/** What every write to a profile sets: it creates the profile of a new user, and the user was seen now. */
export function profileTouch(appId: string, userId: string, now: Date) {
  return { set: { last_seen: now.toISOString() }, setIfAbsent: newProfileFields(appId, userId, now) };
}

/**
 * The user's profile merged with their activity and features items (mergeProfileItems; undefined
 * for a user with none of them), and the user's grants. One Query for all: their sort keys are the
 * only ones of the user's partition from ACTIVITY to PROFILE (GRANT#<entitlement> between them, the
 * latest reports after, under REPORT#). Three items of at most 400 KB each and the grants (at most
 * one per entitlement, MAX_ENTITLEMENTS_PER_APP, each under 1 KB) fit in one page of 1 MB.
 */
export async function readUserItems(
  appId: string,
  userId: string,
): Promise<{ profile: Record<string, unknown> | undefined; grants: GrantRecord[] }> {
  const profileKey = keys.userProfile(appId, userId);
  const activityKey = keys.userActivity(appId, userId);
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': profileKey.pk, ':first': activityKey.sk, ':last': profileKey.sk },
    }),
  );
  const bySortKey = (key: { sk: string }) => Items.find((item) => item.sk === key.sk);
  return {
    profile: mergeProfileItems(
      bySortKey(profileKey),
      bySortKey(activityKey),
      bySortKey(keys.userFeatures(appId, userId)),
    ),
    grants: Items.filter((item) => item.type === GRANT_ITEM_TYPE).map(toGrantRecord),
  };
}

/** The user's profile alone (see readUserItems). */
export async function readProfile(appId: string, userId: string): Promise<Record<string, unknown> | undefined> {
  return (await readUserItems(appId, userId)).profile;
}

export async function getUsageStats(appId: string, userId: string): Promise<UsageStats> {
  const profile = await readProfile(appId, userId);
  const features = profile?.features as Set<string> | undefined;
  return {
    features_used: features?.size ?? 0,
    last_activity: (profile?.last_seen as string | undefined) ?? null,
    total_sessions: Number(profile?.total_sessions ?? 0),
  };
}

/** The parts of a profile that are replaced as a whole by read-merge-write (the counters are updated atomically elsewhere). */
export interface ProfileMaps {
  attributes: Record<string, unknown>;
  custom_properties: Record<string, unknown>;
}

const MAX_PROFILE_ATTEMPTS = 3;

/**
 * Changes the profile's attribute maps through `merge`, conditioned on the version read (a
 * concurrent change is retried on a fresh read). Creates the profile when the user is new.
 */
export async function mergeProfileMaps(
  appId: string,
  userId: string,
  merge: (current: ProfileMaps) => ProfileMaps,
  now: Date,
): Promise<ProfileMaps> {
  for (let attempt = 1; attempt <= MAX_PROFILE_ATTEMPTS; attempt++) {
    const { Item } = await ddb.send(
      new GetCommand({ TableName: tableName, Key: keys.userProfile(appId, userId), ConsistentRead: true }),
    );
    const version = Number(Item?.maps_version ?? 0);
    const next = merge({
      attributes: (Item?.attributes as Record<string, unknown> | undefined) ?? {},
      custom_properties: (Item?.custom_properties as Record<string, unknown> | undefined) ?? {},
    });
    const touch = profileTouch(appId, userId, now);
    try {
      await ddb.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.userProfile(appId, userId),
          ...updateExpression({
            set: {
              ...touch.set,
              attributes: next.attributes,
              custom_properties: next.custom_properties,
              maps_version: version + 1,
            },
            setIfAbsent: touch.setIfAbsent,
            condition: {
              expression: 'attribute_not_exists(maps_version) OR maps_version = :version',
              values: { ':version': version },
            },
          }),
        }),
      );
      return next;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new AppError('CONCURRENT_MODIFICATION', 'The user profile is being changed concurrently; retry', {
    retryable: true,
  });
}
