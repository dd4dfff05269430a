import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type SubscriptionRecord, subscriptionItem } from '../../lib/data/subscription-items.js';
import type { ChangeCause, HistoryEntry, StateImage } from '../../lib/domain/history-entries.js';
import {
  decodeHistoryCursor,
  encodeHistoryCursor,
  historyEntryOf,
  notificationTypeOf,
} from '../../lib/domain/history-entries.js';
import { historyOf } from '../../lib/events/aggregator.js';
import { buildSubscription } from '../support/subscriptions.js';

const T0 = '2026-10-20T08:30:00.000Z';
const T1 = '2026-11-20T08:30:00.000Z';
const T2 = '2026-12-20T08:30:00.000Z';

/** The state images of lib/data/subscription-items.ts toRecord: every field, defaults restored. */
const created: SubscriptionRecord = buildSubscription('app_1', {
  id: 'sub_1',
  user_id: 'user-who-must-not-appear',
  started_at: T0,
  expires_at: T1,
  created_at: T0,
  updated_at: T0,
});
const at = (version: number, updated_at: string, changes: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
  ...created,
  ...changes,
  version,
  updated_at,
});
const cause = (by: ChangeCause['by'], action: string, version: number, notification?: string): ChangeCause => ({
  by,
  action,
  version,
  ...(notification ? { notification } : {}),
});

const CASES: {
  name: string;
  before: SubscriptionRecord | undefined;
  after: SubscriptionRecord | undefined;
  cause: ChangeCause | undefined;
  entry: HistoryEntry | null;
}[] = [
  {
    name: 'a creation lists every field it sets, from null',
    before: undefined,
    after: created,
    cause: cause('verification', 'create', 1),
    entry: {
      at: T0,
      version: 1,
      cause: 'verification',
      action: 'create',
      notification_type: null,
      changes: [
        { field: 'status', from: null, to: 'active' },
        { field: 'expires_at', from: null, to: T1 },
        { field: 'auto_renew', from: null, to: true },
        { field: 'product_id', from: null, to: 'premium_monthly' },
        { field: 'price', from: null, to: 9.99 },
        { field: 'currency', from: null, to: 'USD' },
        { field: 'cancel_at_period_end', from: null, to: false },
      ],
    },
  },
  {
    name: 'a renewal by the store lists the new period and the notification that brought it',
    before: created,
    after: at(2, T1, { expires_at: T2 }),
    cause: cause('store_notification', 'sync', 2, 'DID_RENEW'),
    entry: {
      at: T1,
      version: 2,
      cause: 'store_notification',
      action: 'sync',
      notification_type: 'DID_RENEW',
      changes: [{ field: 'expires_at', from: T1, to: T2 }],
    },
  },
  {
    name: 'a cancellation at period end lists each field it changed, in the fixed order',
    before: at(2, T1),
    after: at(3, T1, {
      auto_renew: false,
      cancel_at_period_end: true,
      cancelled_at: T1,
      cancellation_reason: 'too expensive',
    }),
    cause: cause('api', 'cancel', 3),
    entry: {
      at: T1,
      version: 3,
      cause: 'api',
      action: 'cancel',
      notification_type: null,
      changes: [
        { field: 'auto_renew', from: true, to: false },
        { field: 'cancel_at_period_end', from: false, to: true },
        { field: 'cancelled_at', from: null, to: T1 },
        { field: 'cancellation_reason', from: null, to: 'too expensive' },
      ],
    },
  },
  {
    name: "the sweeper's expiry",
    before: at(3, T1),
    after: at(4, T2, { status: 'expired' }),
    cause: cause('sweeper', 'time_passes', 4),
    entry: {
      at: T2,
      version: 4,
      cause: 'sweeper',
      action: 'time_passes',
      notification_type: null,
      changes: [{ field: 'status', from: 'active', to: 'expired' }],
    },
  },
  {
    name: 'a write that changes no listed field is still one entry (a payment recorded), with no changes',
    before: at(4, T1),
    after: at(5, T2),
    cause: cause('api', 'renew', 5),
    entry: { at: T2, version: 5, cause: 'api', action: 'renew', notification_type: null, changes: [] },
  },
  {
    name: "a cause left on the item by an earlier write is not this write's: unknown",
    before: at(1, T0),
    after: at(2, T1, { status: 'paused' }),
    cause: cause('api', 'create', 1),
    entry: {
      at: T1,
      version: 2,
      cause: 'unknown',
      action: null,
      notification_type: null,
      changes: [{ field: 'status', from: 'active', to: 'paused' }],
    },
  },
  {
    name: 'a write without a cause (bulk seeding) is an entry of unknown cause',
    before: undefined,
    after: at(1, T0, { status: 'expired' }),
    cause: undefined,
    entry: expect.objectContaining({ version: 1, cause: 'unknown', action: null }),
  },
  {
    name: 'a rewrite at the same version (an upgrade reshaping the item) is no entry',
    before: at(3, T1),
    after: at(3, T2, { status: 'expired' }),
    cause: cause('api', 'cancel', 3),
    entry: null,
  },
  { name: 'a deletion is no entry', before: at(3, T1), after: undefined, cause: undefined, entry: null },
];

describe('historyEntryOf: the entry one write of a subscription adds to its history', () => {
  it.each(CASES)('$name', ({ before, after, cause, entry }) => {
    expect(historyEntryOf(before as StateImage | undefined, after as StateImage | undefined, cause)).toEqual(entry);
  });

  it("an entry never carries the user's id (erasure leaves history alone)", () => {
    const entry = historyEntryOf(undefined, created as unknown as StateImage, cause('api', 'create', 1));
    expect(JSON.stringify(entry)).not.toContain(created.user_id);
  });

  it("a store's notification type is its type, and subtype after a slash when it has one", () => {
    expect(notificationTypeOf({ type: 'DID_RENEW', subtype: null })).toBe('DID_RENEW');
    expect(
      notificationTypeOf({
        type: 'DID_CHANGE_RENEWAL_STATUS',
        subtype: 'AUTO_RENEW_DISABLED',
      }),
    ).toBe('DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED');
  });
});

describe('historyOf: a stream record of a subscription write, as the aggregator reads it', () => {
  const record = (
    eventName: 'INSERT' | 'MODIFY',
    before: SubscriptionRecord | undefined,
    after: SubscriptionRecord,
    written: ChangeCause,
  ) =>
    ({
      eventName,
      dynamodb: {
        Keys: marshall({ pk: `SUB#app_1#sub_1`, sk: 'SUB' }),
        ...(before && { OldImage: marshall(subscriptionItem(before), { removeUndefinedValues: true }) }),
        NewImage: marshall(subscriptionItem(after, null, null, written), { removeUndefinedValues: true }),
        SequenceNumber: '1',
      },
    }) as unknown as DynamoDBRecord;

  it('reads the stored items (fields at their default left out) and the cause the write stored', () => {
    const renewed = at(2, T1, { expires_at: T2 });
    expect(historyOf(record('MODIFY', created, renewed, cause('api', 'renew', 2)))).toEqual({
      appId: 'app_1',
      subscriptionId: 'sub_1',
      entry: {
        at: T1,
        version: 2,
        cause: 'api',
        action: 'renew',
        notification_type: null,
        changes: [{ field: 'expires_at', from: T1, to: T2 }],
      },
    });
    expect(historyOf(record('INSERT', undefined, created, cause('api', 'create', 1)))?.entry.changes).toHaveLength(7);
  });
});

describe('history cursor', () => {
  it('continues before the version it names, for the subscription it was issued for', () => {
    const cursor = encodeHistoryCursor({ subscriptionId: 'sub_1', before: 21 });
    expect(decodeHistoryCursor(cursor, 'sub_1')).toBe(21);
  });

  it.each([
    ['not base64url JSON', '%%%'],
    ['JSON without a version', Buffer.from('{"s":"sub_1"}').toString('base64url')],
    ['a version that is not a whole number', Buffer.from('{"s":"sub_1","v":1.5}').toString('base64url')],
    ['a version below 1', Buffer.from('{"s":"sub_1","v":0}').toString('base64url')],
    ['a version as text', Buffer.from('{"s":"sub_1","v":"3"}').toString('base64url')],
    ['a version past the safe integers', Buffer.from('{"s":"sub_1","v":9007199254740992}').toString('base64url')],
    ['JSON null', Buffer.from('null').toString('base64url')],
    ['a JSON number', Buffer.from('3').toString('base64url')],
  ])('refuses %s: 400 cursor is not valid', (_, cursor) => {
    expect(() => decodeHistoryCursor(cursor, 'sub_1')).toThrow(
      expect.objectContaining({
        code: 'INVALID_PARAMETER',
        message: 'cursor is not valid',
        details: [{ path: 'query.cursor', message: 'is not a cursor issued by this API' }],
      }),
    );
  });

  it("refuses another subscription's cursor, saying which to use it with", () => {
    expect(() => decodeHistoryCursor(encodeHistoryCursor({ subscriptionId: 'sub_2', before: 3 }), 'sub_1')).toThrow(
      expect.objectContaining({
        code: 'INVALID_PARAMETER',
        message: 'cursor was issued for another subscription',
        details: [{ path: 'query.cursor', message: 'use the cursor with the subscription whose history it came from' }],
      }),
    );
  });

  it('takes version 1, the first one', () => {
    expect(decodeHistoryCursor(encodeHistoryCursor({ subscriptionId: 'sub_1', before: 1 }), 'sub_1')).toBe(1);
  });
});
