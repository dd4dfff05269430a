/**
 * An app's paywall and guide page bundles (`admin paywalls upload`): one item listing each id at
 * its current version, read with the app's other shown settings (lib/data/offerings.ts). An
 * upload records the next version of its id with a conditional put, so two uploads of one id at
 * once get two versions, never one.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Paywall } from '../schemas/paywall.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';

/** The app's bundles as stored now (a strongly consistent read: the upload's own). */
export async function readPaywalls(appId: string): Promise<{ paywalls: Paywall[]; revision: number }> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.paywalls(appId), ConsistentRead: true }),
  );
  return {
    paywalls: (Item?.paywalls as Paywall[] | undefined) ?? [],
    revision: (Item?.revision as number | undefined) ?? 0,
  };
}

/** Attempts before a run of concurrent uploads to one app is reported rather than retried. */
const RECORD_ATTEMPTS = 5;

/**
 * Records the upload as its id's next version (1 for a new id) and answers it as stored; the
 * bundle's object must already be where its sha256 names it.
 */
export async function recordPaywallVersion(
  appId: string,
  upload: Omit<Paywall, 'version' | 'uploaded_at'>,
  now = new Date(),
): Promise<Paywall> {
  for (let attempt = 1; ; attempt++) {
    const { paywalls, revision } = await readPaywalls(appId);
    const previous = paywalls.find((paywall) => paywall.id === upload.id);
    const recorded: Paywall = { ...upload, version: (previous?.version ?? 0) + 1, uploaded_at: now.toISOString() };
    const list = [...paywalls.filter((paywall) => paywall.id !== upload.id), recorded].sort((a, b) =>
      a.id.localeCompare(b.id),
    );
    try {
      await ddb.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.paywalls(appId),
            type: 'paywalls',
            paywalls: list,
            revision: revision + 1,
            updated_at: recorded.uploaded_at,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR revision = :seen',
          ExpressionAttributeValues: { ':seen': revision },
        }),
      );
      return recorded;
    } catch (error) {
      if (!isConditionFailure(error) || attempt === RECORD_ATTEMPTS) throw error;
    }
  }
}
