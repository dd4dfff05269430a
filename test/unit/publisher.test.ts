import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.EVENT_BUS_NAME = 'subscription-events';
});

import { handler } from '../../functions/events/publish-status-changes.js';
import { INITIAL_LIFECYCLE } from '../../lib/domain/subscription-state.js';
import { OUTBOX_STREAM_FILTER, outboxItem, transferOutboxItem } from '../../lib/events/outbox.js';
import { EVENT_SOURCE, STATUS_CHANGED, TRANSFERRED } from '../../lib/events/schemas.js';

const eventBridge = mockClient(EventBridgeClient);

let sequence = 100;
function streamRecord(
  item: Record<string, unknown>,
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE' = 'INSERT',
): DynamoDBRecord {
  return {
    eventName,
    dynamodb: {
      NewImage: marshall(item, { removeUndefinedValues: true }) as never,
      SequenceNumber: String(sequence++),
      Keys: {},
    },
  } as DynamoDBRecord;
}

const state = {
  ...INITIAL_LIFECYCLE,
  status: 'expired' as const,
  expires_at: '2026-01-01T00:00:00.000Z',
  auto_renew: false,
};
const subject = { app_id: 'app_0123456789abcdef', id: 'sub_0123456789abcdef01234567', user_id: 'u-1' };
const outbox = () =>
  outboxItem(subject, state, { from: 'active', to: 'expired' }, new Date('2026-01-01T00:00:01.000Z'));

describe('outbox publisher (stream -> EventBridge PutEvents, mocked: no local EventBridge exists)', () => {
  beforeEach(() => eventBridge.reset());

  it('puts each outbox insert on the bus as subscription.status_changed with the spec payload', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    const item = outbox();
    const result = await handler({ Records: [streamRecord(item)] });
    expect(result).toEqual({ batchItemFailures: [] });
    const [call] = eventBridge.commandCalls(PutEventsCommand);
    const entry = call!.args[0].input.Entries![0]!;
    expect(entry).toMatchObject({
      EventBusName: 'subscription-events',
      Source: EVENT_SOURCE,
      DetailType: STATUS_CHANGED,
    });
    expect(JSON.parse(entry.Detail!)).toEqual({
      app_id: subject.app_id,
      event_id: item.event_id,
      payload: {
        event: 'subscription.status_changed',
        timestamp: '2026-01-01T00:00:01.000Z',
        data: {
          subscription_id: subject.id,
          user_id: 'u-1',
          old_status: 'active',
          new_status: 'expired',
          expires_at: state.expires_at,
          auto_renew: false,
        },
      },
    });
  });

  it('puts a transfer on the bus with its own detail-type, subscription.transferred', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }, { EventId: '2' }] });
    const transfer = {
      original_transaction_id: '2000000000000001',
      product_id: 'premium_monthly',
      from_user_id: 'u-1',
      to_user_id: 'u-2',
      from_subscription_id: subject.id,
      to_subscription_id: 'sub_fedcba9876543210fedcba98',
    };
    const item = transferOutboxItem(subject.app_id, transfer, new Date('2026-01-01T00:00:02.000Z'));
    expect(await handler({ Records: [streamRecord(outbox()), streamRecord(item)] })).toEqual({ batchItemFailures: [] });
    const entries = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries!;
    expect(entries.map((entry) => entry.DetailType)).toEqual([STATUS_CHANGED, TRANSFERRED]);
    expect(JSON.parse(entries[1]!.Detail!)).toEqual({
      app_id: subject.app_id,
      event_id: item.event_id,
      payload: { event: 'subscription.transferred', timestamp: '2026-01-01T00:00:02.000Z', data: transfer },
    });
  });

  it('ignores every other stream record (state items, modifications, removals)', async () => {
    const result = await handler({
      Records: [
        streamRecord({ pk: 'SUB#a#b', sk: 'SUB', type: 'subscription' }),
        streamRecord(outbox(), 'MODIFY'),
        streamRecord(outbox(), 'REMOVE'),
      ],
    });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('reports the records whose events the bus rejected, so the stream retries them', async () => {
    const records = Array.from({ length: 12 }, () => streamRecord(outbox()));
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

  it('the stream filter matches exactly outbox inserts', () => {
    expect(OUTBOX_STREAM_FILTER).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { type: { S: ['outbox'] } } },
    });
  });
});
