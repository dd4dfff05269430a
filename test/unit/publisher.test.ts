import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.EVENT_BUS_NAME = 'subscription-events';
});

import { handler } from '../../functions/events/publish-status-changes.js';
import { logger } from '../../lib/core/logger.js';
import { type SubscriptionRecord, subscriptionItem } from '../../lib/data/subscription-items.js';
import {
  ANNOUNCED_EVENTS_STREAM_FILTER,
  announcedEventId,
  announcedEvents,
  isPublishedRecord,
  OUTBOX_STREAM_FILTER,
  PUBLISHED_STREAM_FILTERS,
  subscriptionEventsOf,
  transferOutboxItem,
} from '../../lib/events/outbox.js';
import { EVENT_SOURCE, PRODUCT_CHANGED, RENEWED, STATUS_CHANGED, TRANSFERRED } from '../../lib/events/schemas.js';
import { captureLogEntries } from '../support/lambda-events.js';
import { matchesFilter } from '../support/stream-filter.js';
import { buildSubscription } from '../support/subscriptions.js';

const eventBridge = mockClient(EventBridgeClient);

let sequence = 100;
/** A stream record as Lambda hands it over: keys, both images, a sequence number. */
function streamRecord(
  after: Record<string, unknown> | undefined,
  before?: Record<string, unknown>,
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE' = before ? 'MODIFY' : 'INSERT',
): DynamoDBRecord {
  const item = (after ?? before)!;
  const image = (value: Record<string, unknown> | undefined) =>
    value && (marshall(value, { removeUndefinedValues: true }) as never);
  return {
    eventName,
    dynamodb: {
      Keys: image({ pk: item.pk, sk: item.sk }),
      ...(after && { NewImage: image(after) }),
      ...(before && { OldImage: image(before) }),
      SequenceNumber: String(sequence++),
    },
  } as DynamoDBRecord;
}

const APP = 'app_0123456789abcdef';
const active = buildSubscription(APP, {
  id: 'sub_0123456789abcdef01234567',
  user_id: 'u-1',
  expires_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2025-12-01T00:00:00.000Z',
  version: 3,
});
const expired: SubscriptionRecord = {
  ...active,
  status: 'expired',
  auto_renew: false,
  updated_at: '2026-01-01T00:00:01.000Z',
  version: 4,
};
/** The write that expired it: the state item announcing its status change. */
const expiry = () =>
  streamRecord(
    subscriptionItem(expired, null, announcedEvents(4, { from: 'active', to: 'expired' })),
    subscriptionItem(active),
  );
const details = (call = 0) =>
  eventBridge
    .commandCalls(PutEventsCommand)
    [call]!.args[0].input.Entries!.map((entry) => ({ type: entry.DetailType, ...JSON.parse(entry.Detail!) }));

describe('outbox publisher (stream -> EventBridge PutEvents, mocked: no local EventBridge exists)', () => {
  beforeEach(() => eventBridge.reset());

  it('puts the status change a subscription write announces on the bus, with the spec payload', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    const result = await handler({ Records: [expiry()] });
    expect(result).toEqual({ batchItemFailures: [] });
    const [call] = eventBridge.commandCalls(PutEventsCommand);
    expect(call!.args[0].input.Entries![0]).toMatchObject({
      EventBusName: 'subscription-events',
      Source: EVENT_SOURCE,
      DetailType: STATUS_CHANGED,
    });
    expect(details()).toEqual([
      {
        type: STATUS_CHANGED,
        app_id: APP,
        event_id: announcedEventId(APP, active.id, 4, 'status_changed'),
        payload: {
          event: 'subscription.status_changed',
          timestamp: '2026-01-01T00:00:01.000Z',
          data: {
            subscription_id: active.id,
            user_id: 'u-1',
            old_status: 'active',
            new_status: 'expired',
            expires_at: expired.expires_at,
            auto_renew: false,
          },
        },
      },
    ]);
  });

  it("announced events on an item that is no subscription's state item are no events", () => {
    expect(subscriptionEventsOf(expiry())).toHaveLength(1);
    const elsewhere = expiry();
    elsewhere.dynamodb!.Keys!.sk = { S: 'PAYMENT' };
    expect(subscriptionEventsOf(elsewhere)).toEqual([]);
  });

  it('the same record delivered again is the same event (same id): the deliverer sends it once', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    await handler({ Records: [expiry()] });
    await handler({ Records: [expiry()] });
    expect(details(0)).toEqual(details(1));
    expect(announcedEventId(APP, active.id, 4, 'status_changed')).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(announcedEventId(APP, active.id, 5, 'status_changed')).not.toBe(
      announcedEventId(APP, active.id, 4, 'status_changed'),
    );
    expect(announcedEventId(APP, active.id, 4, 'renewed')).not.toBe(
      announcedEventId(APP, active.id, 4, 'status_changed'),
    );
  });

  it('builds store events from both images: the renewal with its transaction, the product change with the old product', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }, { EventId: '2' }] });
    const renewed: SubscriptionRecord = {
      ...active,
      product_id: 'premium_yearly',
      expires_at: '2027-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:02.000Z',
      version: 4,
    };
    const announced = announcedEvents(4, null, {
      kinds: ['renewed', 'product_changed'],
      transactionId: 'tx-2',
    });
    await handler({ Records: [streamRecord(subscriptionItem(renewed, null, announced), subscriptionItem(active))] });
    const [renewal, change] = details();
    expect(renewal).toMatchObject({
      type: RENEWED,
      event_id: announcedEventId(APP, active.id, 4, 'renewed'),
      payload: {
        timestamp: renewed.updated_at,
        data: { subscription_id: active.id, product_id: 'premium_yearly', transaction_id: 'tx-2', status: 'active' },
      },
    });
    expect(change).toMatchObject({
      type: PRODUCT_CHANGED,
      payload: { data: { product_id: 'premium_yearly', previous_product_id: 'premium_monthly' } },
    });
  });

  it('announces nothing for a later write that left the events on the item, or a rewrite of the same version', async () => {
    const withEvents = subscriptionItem(expired, null, announcedEvents(4, { from: 'active', to: 'expired' }));
    // A write of version 5 that kept the attribute (it did not set it), and the same item written again.
    const later = { ...withEvents, version: 5, updated_at: '2026-01-02T00:00:00.000Z' };
    const result = await handler({ Records: [streamRecord(later, withEvents), streamRecord(withEvents, withEvents)] });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('puts a transfer on the bus with its own detail-type, subscription.transferred', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }, { EventId: '2' }] });
    const transfer = {
      original_transaction_id: '2000000000000001',
      product_id: 'premium_monthly',
      from_user_id: 'u-1',
      to_user_id: 'u-2',
      from_subscription_id: active.id,
      to_subscription_id: 'sub_fedcba9876543210fedcba98',
    };
    const item = transferOutboxItem(APP, transfer, new Date('2026-01-01T00:00:02.000Z'));
    expect(await handler({ Records: [expiry(), streamRecord(item)] })).toEqual({ batchItemFailures: [] });
    expect(details().map((detail) => detail.type)).toEqual([STATUS_CHANGED, TRANSFERRED]);
    expect(details()[1]).toEqual({
      type: TRANSFERRED,
      app_id: APP,
      event_id: item.event_id,
      payload: { event: 'subscription.transferred', timestamp: '2026-01-01T00:00:02.000Z', data: transfer },
    });
  });

  it('skips an event that does not parse, logging where it is, and publishes the rest', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    const broken = transferOutboxItem(
      APP,
      { product_id: 'premium_monthly' } as Parameters<typeof transferOutboxItem>[1],
      new Date('2026-01-01T00:00:02.000Z'),
    );
    const logged = captureLogEntries('ERROR');
    try {
      expect(await handler({ Records: [streamRecord(broken), expiry()] })).toEqual({ batchItemFailures: [] });
    } finally {
      vi.restoreAllMocks();
      logger.setLogLevel('SILENT');
    }
    expect(details().map((detail) => detail.type)).toEqual([STATUS_CHANGED]);
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'stream record holds an invalid event; skipped',
        pk: broken.pk,
        issues: 5,
      }),
    ]);
  });

  it('ignores every other stream record (state writes announcing nothing, outbox changes and removals)', async () => {
    const transfer = transferOutboxItem(
      APP,
      {
        original_transaction_id: '1',
        product_id: 'p',
        from_user_id: 'a',
        to_user_id: 'b',
        from_subscription_id: 'sub_a',
        to_subscription_id: 'sub_b',
      },
      new Date(),
    );
    const result = await handler({
      Records: [
        streamRecord(subscriptionItem(active)),
        streamRecord(subscriptionItem(expired), subscriptionItem(active)),
        streamRecord(undefined, subscriptionItem(expired), 'REMOVE'),
        streamRecord(transfer, transfer, 'MODIFY'),
        streamRecord(undefined, transfer, 'REMOVE'),
      ],
    });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('reports the records whose events the bus rejected, once each, so the stream retries them', async () => {
    const records = Array.from({ length: 12 }, () => expiry());
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [...Array.from({ length: 9 }, () => ({ EventId: 'x' })), { ErrorCode: 'ThrottlingException' }],
      })
      .resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: 'y' }, { EventId: 'z' }] });
    const result = await handler({ Records: records });
    expect(eventBridge.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries!.length)).toEqual([10, 2]);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: records[9]!.dynamodb!.SequenceNumber }]);
  });

  it('warns of the events the bus rejected, counting them, and not at all when it took every one', async () => {
    const warned = captureLogEntries('WARN');
    try {
      eventBridge
        .on(PutEventsCommand)
        .resolvesOnce({ FailedEntryCount: 1, Entries: [{ EventId: 'x' }, { ErrorCode: 'ThrottlingException' }] })
        .resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: 'y' }] });
      await handler({ Records: [expiry(), expiry()] });
      await handler({ Records: [expiry()] });
    } finally {
      vi.restoreAllMocks();
      logger.setLogLevel('SILENT');
    }
    expect(warned).toEqual([
      expect.objectContaining({ level: 'WARN', message: 'some events were not accepted by the bus', failed: 1, of: 2 }),
    ]);
  });

  it("an item that carries an older version's announcement (written again without its old image) announces nothing", () => {
    const rewritten = streamRecord(
      subscriptionItem(expired, null, announcedEvents(3, { from: 'paused', to: 'active' })),
    );
    expect(subscriptionEventsOf(rewritten)).toEqual([]);
  });

  it('the stream filters let through exactly the records the publisher takes', () => {
    expect(PUBLISHED_STREAM_FILTERS).toEqual([OUTBOX_STREAM_FILTER, ANNOUNCED_EVENTS_STREAM_FILTER]);
    const transfer = transferOutboxItem(
      APP,
      {
        original_transaction_id: '1',
        product_id: 'p',
        from_user_id: 'a',
        to_user_id: 'b',
        from_subscription_id: 'sub_a',
        to_subscription_id: 'sub_b',
      },
      new Date(),
    );
    const samples: [DynamoDBRecord, boolean][] = [
      [expiry(), true],
      [streamRecord(transfer), true],
      [streamRecord(subscriptionItem(active)), false],
      [streamRecord(subscriptionItem(expired), subscriptionItem(active)), false],
      [streamRecord(transfer, transfer, 'MODIFY'), false],
      [streamRecord(undefined, subscriptionItem(expired), 'REMOVE'), false],
      // An item of another kind with an attribute of the same name.
      [streamRecord({ pk: 'EVENTS#a#u', sk: 'EVT#1', events: { version: 1 } }), false],
    ];
    for (const [record, published] of samples) {
      expect(PUBLISHED_STREAM_FILTERS.some((filter) => matchesFilter(filter, record))).toBe(published);
      expect(isPublishedRecord(record)).toBe(published);
    }
  });
});
