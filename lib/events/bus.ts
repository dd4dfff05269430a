/**
 * Puts events on the stack's EventBridge bus (detail-type: the event kind, e.g. subscription.status_changed).
 * Locally there is no EventBridge: `npm start` installs an in-process dispatcher that invokes the
 * rule's target (the webhook deliverer) the way the rule would.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { config } from '../core/config.js';
import { type BusEventDetail, EVENT_SOURCE } from './schemas.js';

/** Returns the indexes of the events that were not accepted. */
export type BusDispatcher = (events: BusEventDetail[]) => Promise<number[]>;

let localDispatcher: BusDispatcher | undefined;

/** Used by the local runtime only. */
export function useLocalBus(dispatcher: BusDispatcher | undefined): void {
  localDispatcher = dispatcher;
}

const eventBridge = new EventBridgeClient({ region: config.region });
/** PutEvents takes at most 10 entries. */
const MAX_ENTRIES = 10;

export async function putEvents(events: BusEventDetail[]): Promise<number[]> {
  if (localDispatcher) return localDispatcher(events);
  if (!config.eventBusName) throw new Error('EVENT_BUS_NAME is not set');
  const failed: number[] = [];
  for (let start = 0; start < events.length; start += MAX_ENTRIES) {
    const chunk = events.slice(start, start + MAX_ENTRIES);
    const { Entries = [] } = await eventBridge.send(
      new PutEventsCommand({
        Entries: chunk.map((detail) => ({
          EventBusName: config.eventBusName,
          Source: EVENT_SOURCE,
          DetailType: detail.payload.event,
          Detail: JSON.stringify(detail),
          Time: new Date(detail.payload.timestamp),
        })),
      }),
    );
    Entries.forEach((entry, i) => {
      if (entry.ErrorCode) failed.push(start + i);
    });
  }
  return failed;
}
