/** What the outbox sent for one subscription: the events its changes announced, read back from the table's stream. */
import type { DynamoDBRecord } from 'aws-lambda';
import type { BusEventDetail, EventPayload } from '../../lib/events/schemas.js';
import { readTableStream, resumeFrom } from './table-stream.js';

/** Every event the stream has carried so far (per stream and shard, where this process stopped reading). */
const seen: BusEventDetail[] = [];
const readUpTo = new Map<string, string>();

/**
 * Every event the publisher takes from the table's stream so far (reading on from where the last
 * call stopped). lib/ is imported when called, so a test may point store URLs at its stand-ins first.
 */
export async function streamEvents(): Promise<readonly BusEventDetail[]> {
  const { isOutboxInsert, subscriptionEventsOf } = await import('../../lib/events/outbox.js');
  const { unmarshall } = await import('@aws-sdk/util-dynamodb');
  await readTableStream(
    (shardId, records, streamArn) => {
      for (const record of records as unknown as DynamoDBRecord[]) {
        if (isOutboxInsert(record)) seen.push(unmarshall(record.dynamodb!.NewImage as never) as BusEventDetail);
        else seen.push(...subscriptionEventsOf(record));
      }
      readUpTo.set(`${streamArn} ${shardId}`, records.at(-1)!.dynamodb!.SequenceNumber!);
    },
    (streamArn, shardId) => resumeFrom(readUpTo, streamArn, shardId),
  );
  return seen;
}

/**
 * The payloads of the events about one subscription (its own, and a transfer to it) that the
 * publisher takes from the table's stream, in time order, the events of one change (one timestamp)
 * by name.
 */
export async function outboxEventsOf(appId: string, subscriptionId: string): Promise<EventPayload[]> {
  return (await streamEvents())
    .filter((event) => event.app_id === appId)
    .map((event) => event.payload as EventPayload & { data: Record<string, unknown> })
    .filter(
      (payload) =>
        payload.data.subscription_id === subscriptionId || payload.data.to_subscription_id === subscriptionId,
    )
    .sort((a, b) => `${a.timestamp}${a.event}`.localeCompare(`${b.timestamp}${b.event}`));
}

/** The kinds of a subscription's store-driven events (without `subscription.`), status changes left out. */
export const storeEventKindsOf = async (appId: string, subscriptionId: string): Promise<string[]> =>
  (await outboxEventsOf(appId, subscriptionId))
    .map((payload) => payload.event.replace(/^subscription\./, ''))
    .filter((kind) => kind !== 'status_changed');

/** The event kinds `after` holds besides those of `before` (what one change sent), sorted. */
export function addedKinds(before: string[], after: string[]): string[] {
  const rest = [...after];
  for (const kind of before) rest.splice(rest.indexOf(kind), 1);
  return rest.sort();
}
