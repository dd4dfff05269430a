/**
 * lib/events/bus.ts against a mocked EventBridge (no local engine exists; test/cdk asserts the
 * stack's bus and the functions' EVENT_BUS_NAME): entries of at most 10 per PutEvents, each event
 * as the rule matches it, and the indexes of the events the bus refused.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { config } from '../../lib/core/config.js';
import { putEvents } from '../../lib/events/bus.js';
import type { BusEventDetail } from '../../lib/events/schemas.js';
import { statusChange } from '../support/fixtures.js';

const eventBridge = mockClient(EventBridgeClient);
const BUS = 'subscriptions-bus';

const events = (n: number): BusEventDetail[] => Array.from({ length: n }, () => statusChange('app-1'));
const entriesSent = () => eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input.Entries!);

describe('putEvents', () => {
  const configured = config.eventBusName;
  beforeEach(() => {
    eventBridge.reset();
    config.eventBusName = BUS;
  });
  afterEach(() => {
    config.eventBusName = configured;
  });

  it('puts each event on the bus with its kind as detail-type and its timestamp as time', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e1' }] });
    const [event] = events(1);
    expect(await putEvents([event!])).toEqual([]);
    expect(entriesSent()).toEqual([
      [
        {
          EventBusName: BUS,
          Source: 'subscription-backend',
          DetailType: 'subscription.status_changed',
          Detail: JSON.stringify(event),
          Time: new Date(event!.payload.timestamp),
        },
      ],
    ]);
  });

  it('sends at most 10 entries a request: 10 in one, 25 in three of 10, 10 and 5, none for none', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    await putEvents(events(10));
    expect(entriesSent().map((entries) => entries.length)).toEqual([10]);
    eventBridge.resetHistory();
    const many = events(25);
    await putEvents(many);
    expect(entriesSent().map((entries) => entries.length)).toEqual([10, 10, 5]);
    expect(
      entriesSent()
        .flat()
        .map((entry) => JSON.parse(entry.Detail!).event_id),
    ).toEqual(many.map((event) => event.event_id));
    eventBridge.resetHistory();
    expect(await putEvents([])).toEqual([]);
    expect(entriesSent()).toEqual([]);
  });

  it('returns the indexes, in the whole list, of the entries the bus refused', async () => {
    const refusedAt = (indexes: number[], size: number): PutEventsResultEntry[] =>
      Array.from({ length: size }, (_, i) =>
        indexes.includes(i) ? { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' } : { EventId: `e${i}` },
      );
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 0, Entries: refusedAt([], 10) })
      .resolvesOnce({ FailedEntryCount: 2, Entries: refusedAt([0, 3], 10) })
      .resolvesOnce({ FailedEntryCount: 1, Entries: refusedAt([4], 5) });
    expect(await putEvents(events(25))).toEqual([10, 13, 24]);
  });

  it("signs for the configured region: without one in the environment, the same default as the table's client", async () => {
    const environment = { ...process.env };
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    process.env.EVENT_BUS_NAME = BUS;
    try {
      // Evaluated anew: the region is configuration, read from the environment when lib/ loads.
      vi.resetModules();
      const bus = await import('../../lib/events/bus.js');
      const tableClient = await import('../../lib/data/client.js');
      eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e1' }] });
      expect(await bus.putEvents(events(1))).toEqual([]);
      const client = eventBridge.send.getCall(0).thisValue as EventBridgeClient;
      expect(await client.config.region()).toBe('us-east-1');
      expect(await tableClient.ddb.config.region()).toBe('us-east-1');
    } finally {
      process.env = environment;
    }
  });

  it('refuses to run without EVENT_BUS_NAME', async () => {
    config.eventBusName = undefined;
    await expect(putEvents(events(1))).rejects.toThrow('EVENT_BUS_NAME is not set');
    expect(entriesSent()).toEqual([]);
  });
});
