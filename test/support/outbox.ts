/** What the outbox holds for one subscription: the events its changes sent, read back from the table. */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { EventPayload } from '../../lib/events/schemas.js';

/**
 * The payloads of an app's outbox items about one subscription (its own events, and a transfer
 * to it), in time order, the events of one change (one timestamp) by name. Every Scan page: in a
 * full run the shared table grows past one page (1 MB), and the filter applies per page. lib/ is
 * imported when called, so a test may point store URLs at its stand-ins first.
 */
export async function outboxEventsOf(appId: string, subscriptionId: string): Promise<EventPayload[]> {
  const { ddb, tableName } = await import('../../lib/data/client.js');
  const items: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#type = :outbox AND app_id = :app',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':outbox': 'outbox', ':app': appId },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items
    .map((item) => item.payload as EventPayload & { data: Record<string, unknown> })
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
