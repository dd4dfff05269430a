/**
 * What an app shows, as the operator set it: its offerings and placements (one item) and its
 * remote switches (one item), each replaced whole by a put, so a reader sees the old set or the new.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { OfferingsDocument, RemoteSwitch } from '../schemas/offering.js';
import type { Segment } from '../schemas/segment.js';
import { batchGetAll } from './batch.js';
import { ddb, tableName } from './client.js';
import * as keys from './entity-keys.js';

export async function putOfferings(appId: string, document: OfferingsDocument, now = new Date()): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.offerings(appId), type: 'offerings', document, updated_at: now.toISOString() },
    }),
  );
}

export async function putRemoteSwitches(appId: string, switches: RemoteSwitch[], now = new Date()): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.remoteSwitches(appId), type: 'remote_switches', switches, updated_at: now.toISOString() },
    }),
  );
}

/** Everything that decides what an app's users are shown: its offerings, switches and rule segments. */
export interface ShownSettings {
  /** Undefined until the operator puts offerings. */
  offerings: OfferingsDocument | undefined;
  switches: RemoteSwitch[];
  segments: Segment[];
  /** When offerings and switches were last put, the later of the two; null when neither was. */
  updated_at: string | null;
}

/** The app's offerings, switches and rule segments, in one eventually consistent BatchGetItem. */
export async function readShownSettings(appId: string): Promise<ShownSettings> {
  const [offerings, switches, segments] = await batchGetAll([
    keys.offerings(appId),
    keys.remoteSwitches(appId),
    keys.segments(appId),
  ]);
  const updated = [offerings?.updated_at, switches?.updated_at].filter((at): at is string => typeof at === 'string');
  return {
    offerings: offerings?.document as OfferingsDocument | undefined,
    switches: (switches?.switches as RemoteSwitch[] | undefined) ?? [],
    segments: (segments?.segments as Segment[] | undefined) ?? [],
    updated_at: updated.sort().at(-1) ?? null,
  };
}
