import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { itemSize } from '../../bench/support/item-size.js';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import {
  bindTransactionPart,
  getTransactionBinding,
  lookUpPurchase,
  type PurchaseOwner,
  purchaseStatePart,
  transactionItems,
} from '../../lib/data/purchase-ownership.js';
import { receiptOf, type SubscriptionRecord } from '../../lib/data/subscription-items.js';
import {
  getSubscription,
  getSubscriptionRecord,
  listSubscriptions,
  newestSubscriptionsOfUser,
  scanSubscriptions,
} from '../../lib/data/subscription-queries.js';
import {
  bulkInsertSubscriptions,
  insertSubscription,
  saveSubscriptionState,
  writeTogether,
} from '../../lib/data/subscription-writes.js';
import { busEventDetail } from '../../lib/events/schemas.js';
import { settleCounters } from '../support/counters.js';
import { createTestApp, PREMIUM_MONTHLY } from '../support/fixtures.js';
import { buildSubscription, TEST_CAUSE } from '../support/subscriptions.js';

const record = (appId: string, overrides: Partial<SubscriptionRecord> = {}) =>
  buildSubscription(appId, { expires_at: '2030-01-01T00:00:00.000Z', user_id: 'user-1', ...overrides });

const payment = (transactionId: string | null = null) => ({
  transaction_id: transactionId,
  receipt_data: 'cmVjZWlwdA==',
  payment_method: 'app_store',
  last_payment: null,
});
const page = { skip: 0, limit: 100 };
/** A write of the transaction that DynamoDB refuses: its condition holds for no new item. */
const refusedPut = (appId: string) => ({
  Put: {
    TableName: tableName,
    Item: { pk: `TEST#${appId}`, sk: 'MARK', n: 1 },
    ConditionExpression: 'attribute_exists(pk)',
  },
});
/** Who owns a store purchase, as verification reads it. */
const ownerOf = async (appId: string, owner: PurchaseOwner) =>
  (await lookUpPurchase(appId, { productId: 'any', owner, transactionId: 'any' })).owned;

describe('subscription repository (DynamoDB Local)', () => {
  let appId: string;
  beforeAll(async () => {
    ({ appId } = await createTestApp([]));
  });

  it('stores a subscription and its payment item and reads both back', async () => {
    const sub = record(appId);
    expect(await insertSubscription(sub, payment('txn-a'), { cause: TEST_CAUSE })).toEqual({ inserted: true });
    const found = await getSubscription(appId, sub.id);
    expect(found?.record).toEqual(sub);
    expect(found?.payment).toEqual(payment('txn-a'));
    expect(found?.transfers).toEqual([]);
  });

  it('stores a subscription without the fields at their default and reads them back, under 1 KB', async () => {
    const sub = record(appId, { store: 'app_store', original_transaction_id: '2000000123456789' });
    await insertSubscription(sub, payment(), { cause: TEST_CAUSE });
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.subscription(appId, sub.id) }));
    for (const absent of ['cancelled_at', 'paused_at', 'cancel_at_period_end', 'trial_expires_at', 'environment'])
      expect(Item).not.toHaveProperty(absent);
    expect(itemSize(marshall(Item!))).toBeLessThan(1024);
    expect((await getSubscription(appId, sub.id))?.record).toEqual(sub);
  });

  it('a listed key whose item no longer matches the filters (an index trails its table) is left out', async () => {
    const { appId: app } = await createTestApp([]);
    const [kept, moved] = [record(app), record(app)];
    for (const sub of [kept, moved]) await insertSubscription(sub, payment(), { cause: TEST_CAUSE });
    // The item as the index would still see it for a moment after a change: keys say active, the item cancelled.
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.subscription(app, moved.id) }));
    await ddb.send(new PutCommand({ TableName: tableName, Item: { ...Item, status: 'cancelled' } }));
    const { items } = await listSubscriptions(app, { status: 'active' }, page);
    expect(items.map((item) => item.id)).toEqual([kept.id]);
  });

  it('a subscription whose payment item is gone reads the payment defaults, not another item as its payment', async () => {
    const { appId: app } = await createTestApp([]);
    const sub = record(app);
    await insertSubscription(sub, { ...payment('txn-gone'), receipt_data: null }, { cause: TEST_CAUSE });
    await ddb.send(new DeleteCommand({ TableName: tableName, Key: keys.subscriptionPayment(app, sub.id) }));
    expect((await getSubscription(app, sub.id))?.payment).toEqual({
      transaction_id: null,
      receipt_data: null,
      payment_method: 'unknown',
      last_payment: null,
    });
  });

  it('keeps the receipt in its own deflated item, which a payment update leaves alone', async () => {
    const receipt = `eyJhbGciOiJFUzI1NiJ9.${'e30'.repeat(600)}.c2ln`;
    const sub = record(appId);
    await insertSubscription(sub, { ...payment('txn-r1'), receipt_data: receipt }, { cause: TEST_CAUSE });
    const stored = async (key: { pk: string; sk: string }) =>
      (await ddb.send(new GetCommand({ TableName: tableName, Key: key }))).Item;
    expect(await stored(keys.subscriptionPayment(appId, sub.id))).not.toHaveProperty('receipt_data');
    const receiptItem = await stored(keys.subscriptionReceipt(appId, sub.id));
    expect(itemSize(marshall(receiptItem!))).toBeLessThan(receipt.length / 2);
    const saved = await saveSubscriptionState(sub, sub, new Date(), {
      cause: TEST_CAUSE,
      statusChange: null,
      payment: { transaction_id: 'txn-r2', last_payment: '2026-01-01T00:00:00.000Z' },
    });
    expect(saved.saved).toBe(true);
    expect(await stored(keys.subscriptionReceipt(appId, sub.id))).toEqual(receiptItem);
    expect((await getSubscription(appId, sub.id))?.payment).toEqual({
      ...payment('txn-r2'),
      receipt_data: receipt,
      last_payment: '2026-01-01T00:00:00.000Z',
    });
  });

  it('a subscription of one app is invisible under another app id', async () => {
    const sub = record(appId);
    await insertSubscription(sub, payment(), { cause: TEST_CAUSE });
    const other = await createTestApp([]);
    expect(await getSubscription(other.appId, sub.id)).toBeUndefined();
  });

  it('a transaction id binds to one subscription; a second insert writes nothing', async () => {
    const { appId: app } = await createTestApp([]);
    const first = record(app);
    await insertSubscription(first, payment('txn-dup'), { cause: TEST_CAUSE });
    const second = record(app, { user_id: 'user-2' });
    const outcome = await insertSubscription(second, payment('txn-dup'), { cause: TEST_CAUSE });
    expect(outcome).toEqual({
      inserted: false,
      reason: 'transaction_bound',
      existing: { subscription_id: first.id, user_id: 'user-1', product_id: 'premium_monthly' },
    });
    expect(await getSubscription(app, second.id)).toBeUndefined();
    await settleCounters();
    expect((await listSubscriptions(app, {}, page)).total).toBe(1);
    expect(await getTransactionBinding(app, 'txn-dup')).toMatchObject({ subscription_id: first.id });
  });

  it('a write conditioned on a stale version is refused and changes nothing', async () => {
    const sub = record(appId);
    await insertSubscription(sub, payment(), { cause: TEST_CAUSE });
    const now = new Date();
    const first = await saveSubscriptionState(sub, { ...sub, status: 'cancelled' }, now, {
      cause: TEST_CAUSE,
      statusChange: { from: 'active', to: 'cancelled' },
    });
    expect(first).toMatchObject({ saved: true, record: { status: 'cancelled', version: 2 } });
    // A second writer that also read version 1 loses.
    expect(
      await saveSubscriptionState(sub, { ...sub, status: 'expired' }, now, {
        cause: TEST_CAUSE,
        statusChange: { from: 'active', to: 'expired' },
      }),
    ).toEqual({
      saved: false,
      reason: 'version_conflict',
    });
    expect((await getSubscription(appId, sub.id))?.record).toMatchObject({ status: 'cancelled', version: 2 });
  });

  it('counters follow inserts and status changes for every filter combination', async () => {
    const { appId: app } = await createTestApp([]);
    const a = record(app, { platform: 'ios', product_id: 'p1' });
    const b = record(app, { platform: 'android', product_id: 'p1' });
    const c = record(app, { platform: 'android', product_id: 'p2', status: 'pending_verification' });
    for (const sub of [a, b, c]) await insertSubscription(sub, payment(), { cause: TEST_CAUSE });
    const total = async (filters: Parameters<typeof listSubscriptions>[1]) => {
      await settleCounters();
      return (await listSubscriptions(app, filters, page)).total;
    };

    expect(await total({})).toBe(3);
    expect(await total({ status: 'active' })).toBe(2);
    expect(await total({ platform: 'android' })).toBe(2);
    expect(await total({ status: 'active', platform: 'android', product_id: 'p1' })).toBe(1);
    expect(await total({ product_id: 'p2', status: 'active' })).toBe(0);

    await saveSubscriptionState(b, { ...b, status: 'cancelled' }, new Date(), {
      cause: TEST_CAUSE,
      statusChange: { from: 'active', to: 'cancelled' },
    });
    expect(await total({})).toBe(3);
    expect(await total({ status: 'active' })).toBe(1);
    expect(await total({ status: 'cancelled', platform: 'android' })).toBe(1);
    const cancelled = await listSubscriptions(app, { status: 'cancelled' }, page);
    expect(cancelled.items.map((s) => s.id)).toEqual([b.id]);
  });

  it("an insert with revenue carries it, amounts of zero left out, on the day of the record's update", async () => {
    const { appId: app } = await createTestApp([]);
    const sub = record(app, { updated_at: '2026-02-03T23:59:59.000Z' });
    const revenue = { amount_micros: 4_990_000, new_subscriptions: 1, renewals: 0, refunds: 0, net_active: 1 };
    await insertSubscription(sub, payment(), { cause: TEST_CAUSE, revenue });
    expect((await getConsistent(keys.subscription(app, sub.id)))?.revenue_change).toEqual({
      day: '2026-02-03',
      version: sub.version,
      amount_micros: 4_990_000,
      new_subscriptions: 1,
      net_active: 1,
    });
  });

  it('bulk insertion counts every subscription once in every counter', async () => {
    const { appId: app } = await createTestApp([]);
    const records = Array.from({ length: 30 }, (_, i) =>
      record(app, {
        status: i % 3 === 0 ? 'expired' : 'active',
        platform: i % 2 ? 'ios' : 'android',
        created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      }),
    );
    await bulkInsertSubscriptions(
      records.map((r, i) => ({ record: r, payment: { ...payment(), receipt_data: i === 0 ? 'cmVjZWlwdA==' : null } })),
    );
    // An active one carries its activation, on the day it was created; the others none. Only a
    // receipt given is stored.
    const [expired, active] = records;
    expect((await getConsistent(keys.subscription(app, active!.id)))?.revenue_change).toEqual({
      day: '2026-01-01',
      version: active!.version,
      net_active: 1,
    });
    expect(await getConsistent(keys.subscription(app, expired!.id))).not.toHaveProperty('revenue_change');
    expect(await getConsistent(keys.subscriptionReceipt(app, expired!.id))).toBeDefined();
    expect(await getConsistent(keys.subscriptionReceipt(app, active!.id))).toBeUndefined();
    await settleCounters();
    expect((await listSubscriptions(app, {}, page)).total).toBe(30);
    expect((await listSubscriptions(app, { status: 'expired' }, page)).total).toBe(10);
    expect((await listSubscriptions(app, { status: 'active', platform: 'ios' }, page)).total).toBe(
      records.filter((r) => r.status === 'active' && r.platform === 'ios').length,
    );
    const firstPage = await listSubscriptions(app, {}, { skip: 0, limit: 5 });
    expect(firstPage.items.map((s) => s.id)).toEqual(
      records
        .slice(-5)
        .reverse()
        .map((r) => r.id),
    );
  });

  it('a store purchase belongs to one user: another user cannot bind it, a take-over from the owner can', async () => {
    const { appId: app } = await createTestApp([]);
    const owner = { store: 'app_store', original_transaction_id: '2000000000000777' };
    const first = record(app, { user_id: 'alice' });
    expect(await insertSubscription(first, payment('tx-777'), { owner, cause: TEST_CAUSE })).toEqual({
      inserted: true,
    });
    expect(await ownerOf(app, owner)).toEqual({ user_id: 'alice', subscription_id: first.id });

    const intruder = record(app, { user_id: 'mallory' });
    expect(await insertSubscription(intruder, payment('tx-778'), { owner, cause: TEST_CAUSE })).toEqual({
      inserted: false,
      reason: 'owned_by_another_user',
    });
    expect(await getSubscription(app, intruder.id)).toBeUndefined();
    expect(await getTransactionBinding(app, 'tx-778')).toBeUndefined();

    // A take-over names the previous owner and subscription; the transaction moves with the purchase.
    const heir = record(app, { user_id: 'bob' });
    const takeOver = { fromUserId: 'alice', fromSubscriptionId: first.id };
    expect(await insertSubscription(heir, payment('tx-777'), { owner, takeOver, cause: TEST_CAUSE })).toEqual({
      inserted: true,
    });
    expect(await ownerOf(app, owner)).toEqual({ user_id: 'bob', subscription_id: heir.id });
    expect(await getTransactionBinding(app, 'tx-777')).toMatchObject({ subscription_id: heir.id, user_id: 'bob' });
    // The same write lists the transfer on both subscriptions and holds its notification.
    const transfer = {
      from_user_id: 'alice',
      to_user_id: 'bob',
      from_subscription_id: first.id,
      to_subscription_id: heir.id,
      original_transaction_id: owner.original_transaction_id,
      transferred_at: heir.updated_at,
      event_id: expect.stringMatching(/^evt_/),
    };
    const [listed] = (await getSubscription(app, heir.id))!.transfers;
    expect(listed).toEqual(transfer);
    expect((await getSubscription(app, first.id))!.transfers).toEqual([listed]);
    const { Item: outbox } = await ddb.send(
      new GetCommand({ TableName: tableName, Key: keys.outbox(listed!.event_id) }),
    );
    expect(
      busEventDetail.parse({ app_id: outbox!.app_id, event_id: outbox!.event_id, payload: outbox!.payload }),
    ).toEqual({
      app_id: app,
      event_id: listed!.event_id,
      payload: {
        event: 'subscription.transferred',
        timestamp: heir.updated_at,
        data: {
          original_transaction_id: owner.original_transaction_id,
          product_id: heir.product_id,
          from_user_id: 'alice',
          to_user_id: 'bob',
          from_subscription_id: first.id,
          to_subscription_id: heir.id,
        },
      },
    });
    // A stale take-over (alice no longer owns it) is refused, and writes no transfer.
    expect(
      await insertSubscription(record(app, { user_id: 'carol' }), payment(), { owner, takeOver, cause: TEST_CAUSE }),
    ).toEqual({
      inserted: false,
      reason: 'owned_by_another_user',
    });
    expect((await getSubscription(app, first.id))!.transfers).toEqual([listed]);
  });

  it("a first purchase's binding and owner are one item, written once and read once", async () => {
    const { appId: app } = await createTestApp([PREMIUM_MONTHLY]);
    const owner = { store: 'app_store', original_transaction_id: '2000000000000900' };
    const sub = record(app, { user_id: 'erin' });
    expect(await insertSubscription(sub, payment(owner.original_transaction_id), { owner, cause: TEST_CAUSE })).toEqual(
      {
        inserted: true,
      },
    );
    expect(await getConsistent(keys.purchase(app, owner.original_transaction_id))).toMatchObject({
      ...keys.transaction(app, owner.original_transaction_id),
      subscription_id: sub.id,
      user_id: 'erin',
      product_id: sub.product_id,
      owner_user_id: 'erin',
      owner_subscription_id: sub.id,
      store: 'app_store',
    });
    // The purchase's item and the transaction's are one key: BatchGetItem is sent it once.
    expect(
      await lookUpPurchase(app, { productId: 'premium_monthly', owner, transactionId: owner.original_transaction_id }),
    ).toMatchObject({
      owned: { user_id: 'erin', subscription_id: sub.id },
      binding: { subscription_id: sub.id, user_id: 'erin' },
    });
    // Another user's insert of the same purchase: the binding on the shared item is why it is refused.
    const other = record(app, { user_id: 'frank' });
    expect(
      await insertSubscription(other, payment(owner.original_transaction_id), { owner, cause: TEST_CAUSE }),
    ).toEqual({
      inserted: false,
      reason: 'transaction_bound',
      existing: { subscription_id: sub.id, user_id: 'erin', product_id: sub.product_id },
    });

    // An original transaction bound later, with the store's state of its purchase in the same
    // change: two parts of one item, merged into one write.
    const later = record(app, { user_id: 'erin' });
    await insertSubscription(later, payment('2000000000000901-renewal'), {
      owner: { store: 'app_store', original_transaction_id: '2000000000000901' },
      cause: TEST_CAUSE,
    });
    const state = {
      store: 'app_store',
      original_transaction_id: '2000000000000901',
      as_of: '2026-01-01T00:00:00.000Z',
    } as never;
    const saved = await saveSubscriptionState(later, { ...later, auto_renew: false }, new Date(), {
      cause: TEST_CAUSE,
      statusChange: null,
      bindTransaction: '2000000000000901',
      alsoWrite: [purchaseStatePart(app, state)],
    });
    expect(saved).toMatchObject({ saved: true });
    expect(await getConsistent(keys.purchase(app, '2000000000000901'))).toMatchObject({
      subscription_id: later.id,
      owner_subscription_id: later.id,
      store_as_of: '2026-01-01T00:00:00.000Z',
    });
    // The same state again: its part is refused, so the change is, and the caller decides anew.
    const again = await saveSubscriptionState(saved.saved ? saved.record : later, later, new Date(), {
      cause: TEST_CAUSE,
      statusChange: null,
      alsoWrite: [purchaseStatePart(app, state)],
    });
    expect(again).toMatchObject({ saved: false, reason: 'also_write_refused' });
  });

  it('merges the parts of one transaction item, and refuses two that set one attribute differently', () => {
    const sub = record('app_merge', { user_id: 'gina' });
    const state = { store: 'app_store', original_transaction_id: 'orig-1', as_of: '2026-01-01T00:00:00.000Z' };
    const { items, itemOf } = transactionItems([
      bindTransactionPart(sub, 'orig-1'),
      purchaseStatePart('app_merge', state as never),
      bindTransactionPart(sub, 'renewal-2'),
    ]);
    expect(items).toHaveLength(2);
    expect(itemOf(bindTransactionPart(sub, 'orig-1'))).toBe(items[0]);
    expect(items[0]!.Update!.ConditionExpression).toBe(
      'attribute_not_exists(subscription_id) AND (attribute_not_exists(store_as_of) OR store_as_of < :asOf)',
    );
    expect(() =>
      transactionItems([
        bindTransactionPart(sub, 'orig-1'),
        bindTransactionPart({ ...sub, id: 'sub_other' }, 'orig-1'),
      ]),
    ).toThrow(/set attribute subscription_id to different values/);
    // The same part twice is one condition, not the condition twice.
    const twice = transactionItems([bindTransactionPart(sub, 'orig-1'), bindTransactionPart(sub, 'orig-1')]).items;
    expect(twice).toHaveLength(1);
    expect(twice[0]!.Update!.ConditionExpression).toBe('attribute_not_exists(subscription_id)');
    expect(() =>
      transactionItems([
        bindTransactionPart(sub, 'orig-1', { fromUserId: 'ann', fromSubscriptionId: 'sub_a' }),
        bindTransactionPart(sub, 'orig-1', { fromUserId: 'ann', fromSubscriptionId: 'sub_b' }),
      ]),
    ).toThrow('two writes of one transaction item set placeholder :from to different values');
  });

  it('looks up the product, the owner and the binding of a purchase in one read, and reads keys DynamoDB left unprocessed one by one', async () => {
    const { appId: app } = await createTestApp([PREMIUM_MONTHLY]);
    const owner = { store: 'app_store', original_transaction_id: '2000000000000888' };
    const sub = record(app, { user_id: 'dana' });
    await insertSubscription(sub, payment('tx-888'), { owner, cause: TEST_CAUSE });
    const expected = {
      product: PREMIUM_MONTHLY,
      owned: { user_id: 'dana', subscription_id: sub.id },
      binding: { subscription_id: sub.id, user_id: 'dana', product_id: 'premium_monthly' },
    };
    expect(await lookUpPurchase(app, { productId: 'premium_monthly', owner, transactionId: 'tx-888' })).toEqual(
      expected,
    );
    expect(
      await lookUpPurchase(app, {
        productId: 'unknown',
        owner: { ...owner, original_transaction_id: 'other' },
        transactionId: 'tx-other',
      }),
    ).toEqual({
      product: undefined,
      owned: undefined,
      binding: undefined,
    });

    // DynamoDB may answer a batch in part under throttling: here it leaves all but the first key for later.
    const operations: string[] = [];
    ddb.middlewareStack.add(
      (next, context) => async (args) => {
        operations.push(context.commandName!);
        const response = await next(args);
        const output = response.output as {
          Responses?: Record<string, Record<string, unknown>[]>;
          UnprocessedKeys?: Record<string, { Keys: unknown[] }>;
        };
        if (context.commandName === 'BatchGetItemCommand') {
          const request = (args.input as { RequestItems: Record<string, { Keys: unknown[] }> }).RequestItems;
          const [table, { Keys }] = Object.entries(request)[0]!;
          const [kept] = Keys as { sk: string }[];
          output.Responses = { [table]: (output.Responses?.[table] ?? []).filter((item) => item.sk === kept!.sk) };
          output.UnprocessedKeys = { [table]: { ...request[table]!, Keys: Keys.slice(1) } };
        }
        return response;
      },
      // Where the document client's commands see their input and output as plain values.
      { step: 'initialize', name: 'leaveKeysUnprocessed' },
    );
    try {
      expect(await lookUpPurchase(app, { productId: 'premium_monthly', owner, transactionId: 'tx-888' })).toEqual(
        expected,
      );
    } finally {
      ddb.middlewareStack.remove('leaveKeysUnprocessed');
    }
    expect(operations).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand']);
  });
});

describe('a user filter read page by page, and the whole-app scan', () => {
  const newestFirst = async (appId: string, userId: string, count: number) => {
    const records: SubscriptionRecord[] = [];
    for (let n = 0; n < count; n++) {
      const at = new Date(Date.UTC(2026, 0, 1 + n)).toISOString();
      const sub = buildSubscription(appId, { user_id: userId, created_at: at, started_at: at, updated_at: at });
      await insertSubscription(sub, payment(), { cause: TEST_CAUSE });
      records.push(sub);
    }
    return records.reverse();
  };
  const ids = (items: SubscriptionRecord[]) => items.map((item) => item.id);

  it("a cursor into a user's subscriptions resumes right after the one it names", async () => {
    const { appId } = await createTestApp();
    const all = await newestFirst(appId, 'pager', 5);
    const first = await listSubscriptions(appId, { user_id: 'pager' }, { skip: 0, limit: 2 });
    expect({ ids: ids(first.items), total: first.total }).toEqual({ ids: ids(all.slice(0, 2)), total: 5 });
    const last = first.items.at(-1)!;
    const next = await listSubscriptions(
      appId,
      { user_id: 'pager' },
      { after: { id: last.id, list_sk: `${last.created_at}#${last.id}` }, skip: 0, limit: 2 },
    );
    expect({ ids: ids(next.items), total: next.total }).toEqual({ ids: ids(all.slice(2, 4)), total: 5 });
    const skipped = await listSubscriptions(appId, { user_id: 'pager' }, { skip: 3, limit: 10 });
    expect(ids(skipped.items)).toEqual(ids(all.slice(3)));
  });

  it("a page of a user's subscriptions says whether another follows it", async () => {
    const { appId } = await createTestApp();
    await newestFirst(appId, 'more-or-not', 3);
    const more = async (skip: number, limit: number) =>
      (await listSubscriptions(appId, { user_id: 'more-or-not' }, { skip, limit })).more;
    // [skip, limit]: 3 subscriptions.
    expect(await more(0, 2)).toBe(true);
    expect(await more(1, 2)).toBe(false);
    expect(await more(0, 3)).toBe(false);
    expect(await more(0, 4)).toBe(false);
    expect(await more(2, 1)).toBe(false);
    expect(await more(1, 1)).toBe(true);
  });

  it("a cursor into an app's listing resumes right after the one it names, reading only older keys", async () => {
    const { appId } = await createTestApp();
    const all = await newestFirst(appId, 'app-pager', 5);
    const first = await listSubscriptions(appId, {}, { skip: 0, limit: 2 });
    expect(ids(first.items)).toEqual(ids(all.slice(0, 2)));
    const last = first.items.at(-1)!;
    const after = { id: last.id, list_sk: `${last.created_at}#${last.id}` };
    const next = await listSubscriptions(appId, {}, { after, skip: 0, limit: 2 });
    expect(ids(next.items)).toEqual(ids(all.slice(2, 4)));
    const rest = await listSubscriptions(appId, { platform: 'ios' }, { after, skip: 0, limit: 10 });
    expect(ids(rest.items)).toEqual(ids(all.slice(2)));
  });

  it("a user's newest subscriptions leave out one the user index still lists after its purchase moved to another user", async () => {
    const { appId } = await createTestApp();
    const [newest, moved, oldest] = await newestFirst(appId, 'mover', 3);
    // The item as the user index would still see it for a moment: keys under 'mover', the item another user's.
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.subscription(appId, moved!.id) }));
    await ddb.send(new PutCommand({ TableName: tableName, Item: { ...Item, user_id: 'someone-else' } }));
    expect(ids(await newestSubscriptionsOfUser(appId, 'mover', 10))).toEqual([newest!.id, oldest!.id]);
    expect(ids(await newestSubscriptionsOfUser(appId, 'mover', 1))).toEqual([newest!.id]);
  });

  it("scanSubscriptions yields every subscription of the app, and only that app's state items", async () => {
    const { appId } = await createTestApp();
    const { appId: otherAppId } = await createTestApp();
    const mine = await newestFirst(appId, 'scanned', 3);
    await newestFirst(otherAppId, 'scanned', 1);
    const seen: SubscriptionRecord[] = [];
    for await (const pageOfRecords of scanSubscriptions(appId)) seen.push(...pageOfRecords);
    expect(ids(seen).sort()).toEqual(ids(mine).sort());
    expect(seen.find((s) => s.id === mine[0]!.id)).toEqual(mine[0]);
  });
});

describe('what a save writes besides the state, and which refusal it reports', () => {
  const saveOptions = { statusChange: null, cause: TEST_CAUSE };
  const receiptOfSub = async (sub: SubscriptionRecord) => getConsistent(keys.subscriptionReceipt(sub.app_id, sub.id));

  it('a payment change updates the payment item; a receipt is stored, and null deletes it', async () => {
    const { appId } = await createTestApp();
    const sub = record(appId);
    await insertSubscription(sub, payment('txn-p1'), { cause: TEST_CAUSE });
    const paid = '2026-02-01T00:00:00.000Z';
    const first = await saveSubscriptionState(sub, sub, new Date(), {
      ...saveOptions,
      payment: { transaction_id: 'txn-p2', last_payment: paid, receipt_data: 'receipt-two' },
    });
    expect(first).toMatchObject({ saved: true });
    expect(await getConsistent(keys.subscriptionPayment(appId, sub.id))).toMatchObject({
      transaction_id: 'txn-p2',
      last_payment: paid,
    });
    expect(receiptOf((await receiptOfSub(sub))!)).toBe('receipt-two');
    const saved = (first as { record: SubscriptionRecord }).record;
    expect(
      await saveSubscriptionState(saved, saved, new Date(), { ...saveOptions, payment: { receipt_data: null } }),
    ).toMatchObject({
      saved: true,
    });
    expect(await receiptOfSub(sub)).toBeUndefined();
    // The payment item keeps its fields when only the receipt changes.
    expect(await getConsistent(keys.subscriptionPayment(appId, sub.id))).toMatchObject({ transaction_id: 'txn-p2' });
  });

  it('an alsoWrite item whose condition fails: also_write_refused, naming it, and nothing written', async () => {
    const { appId } = await createTestApp();
    const sub = record(appId);
    await insertSubscription(sub, payment(), { cause: TEST_CAUSE });
    const refusedWrite = refusedPut(appId);
    const outcome = await saveSubscriptionState(sub, { ...sub, status: 'cancelled' }, new Date(), {
      ...saveOptions,
      alsoWrite: [refusedWrite],
    });
    expect(outcome).toEqual({ saved: false, reason: 'also_write_refused', item: refusedWrite });
    expect(await getSubscriptionRecord(appId, sub.id)).toMatchObject({ status: 'active', version: sub.version });
  });

  it('an insert whose alsoWrite item is refused: also_write_refused, and nothing written', async () => {
    const { appId } = await createTestApp();
    const sub = record(appId);
    const written = { Put: { TableName: tableName, Item: { pk: `TEST#${appId}`, sk: 'FREE', n: 1 } } };
    const refused = refusedPut(appId);
    expect(await insertSubscription(sub, payment(), { cause: TEST_CAUSE, alsoWrite: [written, refused] })).toEqual({
      inserted: false,
      reason: 'also_write_refused',
    });
    expect(await getSubscriptionRecord(appId, sub.id)).toBeUndefined();
    expect(await getConsistent({ pk: `TEST#${appId}`, sk: 'FREE' })).toBeUndefined();
  });

  it('a takeover insert whose alsoWrite item is refused: also_write_refused, though the transaction is bound to the subscription taken over', async () => {
    const { appId } = await createTestApp();
    const from = record(appId, { user_id: 'user-1' });
    await insertSubscription(from, payment(`txn-${appId}`), { cause: TEST_CAUSE });
    const to = record(appId, { user_id: 'user-2' });
    const refused = refusedPut(appId);
    const takeOver = { fromUserId: 'user-1', fromSubscriptionId: from.id };
    expect(
      await insertSubscription(to, payment(`txn-${appId}`), { cause: TEST_CAUSE, takeOver, alsoWrite: [refused] }),
    ).toEqual({ inserted: false, reason: 'also_write_refused' });
    expect(await getConsistent(keys.transaction(appId, `txn-${appId}`))).toMatchObject({ subscription_id: from.id });
  });

  it("a save that would bind another subscription's transaction, or another user's purchase, is refused naming which", async () => {
    const { appId } = await createTestApp();
    const owner = { store: 'test_store', original_transaction_id: `otx-${appId}` };
    const first = record(appId, { user_id: 'user-1' });
    await insertSubscription(first, payment(`txn-${appId}`), { cause: TEST_CAUSE, owner });
    const second = record(appId, { user_id: 'user-2' });
    await insertSubscription(second, payment(), { cause: TEST_CAUSE });
    const save = (options: Partial<Parameters<typeof saveSubscriptionState>[3]>) =>
      saveSubscriptionState(second, { ...second, auto_renew: false }, new Date(), { ...saveOptions, ...options });
    expect(await save({ bindTransaction: `txn-${appId}` })).toEqual({ saved: false, reason: 'transaction_bound' });
    expect(await save({ bindOwner: owner })).toEqual({ saved: false, reason: 'owned_by_another_user' });
    // A refused binding whose item an alsoWrite part also writes is that part's refusal: the caller decides anew.
    const sameItem = {
      key: keys.transaction(appId, `txn-${appId}`),
      set: { note: 'x' },
      condition: { expression: 'attribute_exists(pk)', values: {} },
    };
    expect(await save({ bindTransaction: `txn-${appId}`, alsoWrite: [sameItem] })).toMatchObject({
      saved: false,
      reason: 'also_write_refused',
    });
    // An alsoWrite of another item that would have been written changes nothing to whose refusal it is.
    const elsewhere = { Put: { TableName: tableName, Item: { pk: `TEST#${appId}`, sk: 'ELSEWHERE' } } };
    expect(await save({ bindTransaction: `txn-${appId}`, alsoWrite: [elsewhere] })).toEqual({
      saved: false,
      reason: 'transaction_bound',
    });
    expect(await getConsistent({ pk: `TEST#${appId}`, sk: 'ELSEWHERE' })).toBeUndefined();
    expect(await getSubscriptionRecord(appId, second.id)).toMatchObject({ auto_renew: true, version: second.version });
  });

  it('a stale version wins over any other refusal: version_conflict', async () => {
    const { appId } = await createTestApp();
    const sub = record(appId);
    await insertSubscription(sub, payment(), { cause: TEST_CAUSE });
    const stale = { ...sub, version: sub.version - 1 };
    const outcome = await saveSubscriptionState(stale, { ...stale, status: 'cancelled' }, new Date(), {
      ...saveOptions,
      alsoWrite: [refusedPut(appId)],
    });
    expect(outcome).toEqual({ saved: false, reason: 'version_conflict' });
  });

  it('writeTogether: all or nothing, answering the first write refused; an invalid write is thrown', async () => {
    const { appId } = await createTestApp();
    const put = (sk: string, condition?: string) => ({
      Put: {
        TableName: tableName,
        Item: { pk: `TEST#${appId}`, sk },
        ...(condition ? { ConditionExpression: condition } : {}),
      },
    });
    expect(await writeTogether([put('A'), put('B')])).toBeUndefined();
    expect(await getConsistent({ pk: `TEST#${appId}`, sk: 'B' })).toEqual({ pk: `TEST#${appId}`, sk: 'B' });
    const second = put('D', 'attribute_exists(pk)');
    expect(await writeTogether([put('C'), second, put('E', 'attribute_exists(pk)')])).toBe(second);
    expect(await getConsistent({ pk: `TEST#${appId}`, sk: 'C' })).toBeUndefined();
    await expect(writeTogether([put('F', 'no_such_function(pk)')])).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });
});
