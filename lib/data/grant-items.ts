/**
 * Grants of entitlements, one item per user and entitlement in the user's partition
 * (grantKey). Every change writes the grant and its event's outbox item in one transaction,
 * conditioned on the version read; a grant that runs is in the due index (kind GRT) at its
 * expires_at, for the sweeper.
 */
import type { GrantRecord } from '../domain/grant-decisions.js';
import { grantOutboxItem } from '../events/outbox.js';
import type { GrantEventPayload } from '../events/schemas.js';
import { getConsistent } from './batch.js';
import { type TransactItem, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { newProfileFields } from './profile-fields.js';
import { boundedDueId, dueAttributes, grantKey, type TableKey } from './table-keys.js';
import { transactWrite } from './transactions.js';
import { cancellationReasonsOf } from './unavailable.js';
import { updateExpression } from './update-expression.js';

export const GRANT_ITEM_TYPE = 'entitlement_grant';

export interface StoredGrant extends GrantRecord {
  app_id: string;
  user_id: string;
}

export function toGrantRecord(item: Record<string, unknown>): StoredGrant {
  return {
    app_id: item.app_id as string,
    user_id: item.user_id as string,
    entitlement_id: item.entitlement_id as string,
    granted_at: item.granted_at as string,
    expires_at: item.expires_at as string,
    ended_at: (item.ended_at as string | null | undefined) ?? null,
    end_reason: (item.end_reason as GrantRecord['end_reason'] | undefined) ?? null,
    version: Number(item.version),
  };
}

/** The grant at this key (strongly consistent: the next write is conditioned on its version). */
export async function getGrantAt(key: TableKey): Promise<StoredGrant | undefined> {
  const item = await getConsistent(key);
  return item?.type === GRANT_ITEM_TYPE ? toGrantRecord(item) : undefined;
}

export function getGrant(appId: string, userId: string, entitlementId: string) {
  return getGrantAt(grantKey(appId, userId, entitlementId));
}

/** Another write changed the grant since it was read: the caller reads it again. */
export class GrantChangedError extends Error {
  constructor() {
    // Stryker disable next-line StringLiteral: a signal the service's retry catches by class (lib/services/grants.ts); never shown
    super('the grant changed since it was read');
    // Stryker disable next-line StringLiteral: as above
    this.name = 'GrantChangedError';
  }
}

/** Only if the grant is still at the version read (0: there was none). */
function unchangedSince(version: number) {
  return version === 0
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : {
        ConditionExpression: '#version = :read',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':read': version },
      };
}

async function writeWithEvent(
  grantWrite: TransactItem,
  others: TransactItem[],
  appId: string,
  event: GrantEventPayload,
  now: Date,
): Promise<void> {
  const outbox = grantOutboxItem(appId, event, now);
  try {
    await transactWrite([
      grantWrite,
      ...others,
      { Put: { TableName: tableName, Item: outbox, ConditionExpression: 'attribute_not_exists(pk)' } },
    ]);
  } catch (error) {
    if (cancellationReasonsOf(error)[0] === 'ConditionalCheckFailed') throw new GrantChangedError();
    throw error;
  }
}

/**
 * Writes a running grant (new, extended or changed; `readVersion` is the version it replaces, 0
 * for none), in the due index at its end, and the user's profile if the user had none: a user the
 * app grants to is a user it knows.
 */
export async function putGrant(
  grant: StoredGrant,
  readVersion: number,
  event: GrantEventPayload,
  now: Date,
): Promise<void> {
  const key = grantKey(grant.app_id, grant.user_id, grant.entitlement_id);
  const { app_id, user_id } = grant;
  await writeWithEvent(
    {
      Put: {
        TableName: tableName,
        Item: {
          ...key,
          type: GRANT_ITEM_TYPE,
          ...grant,
          updated_at: now.toISOString(),
          ...dueAttributes(
            'GRT',
            grant.expires_at,
            now.toISOString(),
            boundedDueId(`${user_id}#${grant.entitlement_id}`),
          ),
        },
        ...unchangedSince(readVersion),
      },
    },
    [
      {
        Update: {
          TableName: tableName,
          Key: keys.userProfile(app_id, user_id),
          ...updateExpression({
            setIfAbsent: newProfileFields(app_id, user_id, now),
          }),
        },
      },
    ],
    app_id,
    event,
    now,
  );
}

/** Records the end of a grant (revoked or expired): out of the due index, at version `ended.version`. */
export async function endGrant(ended: StoredGrant, event: GrantEventPayload, now: Date): Promise<void> {
  const { app_id, user_id, entitlement_id, expires_at, ended_at, end_reason, version } = ended;
  const condition = unchangedSince(version - 1);
  await writeWithEvent(
    {
      Update: {
        TableName: tableName,
        Key: grantKey(app_id, user_id, entitlement_id),
        ...updateExpression({
          set: { expires_at, ended_at, end_reason, version, updated_at: now.toISOString() },
          remove: ['due_pk', 'due_sk'],
          condition: {
            expression: condition.ConditionExpression,
            names: condition.ExpressionAttributeNames,
            values: condition.ExpressionAttributeValues,
          },
        }),
      },
    },
    [],
    app_id,
    event,
    now,
  );
}
