/**
 * The erasure's own writes (lib/data/erasure-writes.ts) against DynamoDB Local, each on its own and in
 * seconds: the marker's lease (start, claim, progress, finish), a partition deleted in bounded
 * steps, and a subscription moved to the anonymous id with its purchase. The whole erasure of a
 * heavy user, through the service and the job, is test/integration/erasure.test.ts.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { batchWriteAll, getConsistent, putRequest } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import {
  claimErasure,
  deleteFromPartition,
  detachSubscription,
  type ErasureMarker,
  finishErasureOnceDetached,
  getErasure,
  saveErasureProgress,
  startErasure,
  subscriptionKeysOfUser,
} from '../../lib/data/erasure-writes.js';
import { BOUND_TRANSACTIONS_ATTRIBUTE, receiptItem } from '../../lib/data/subscription-items.js';
import { saveSubscriptionState } from '../../lib/data/subscription-writes.js';
import { erasureKey } from '../../lib/data/table-keys.js';
import { appAccountTokenFor } from '../../lib/domain/app-account-token.js';
import { NO_COUNTS } from '../../lib/domain/erasure-scope.js';
import { interceptCommands, stopIntercepting, throttled } from '../support/ddb-intercept.js';
import { seedSubscription } from '../support/subscriptions.js';

const run = `erasure-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let apps = 0;
const newAppId = () => `app_${run.replace(/[^a-z0-9]/g, '')}${++apps}`;
const T0 = new Date('2026-05-01T10:00:00.000Z');
const MINUTE = 60_000;
const at = (ms: number) => new Date(T0.getTime() + ms);
const raw = getConsistent;

const markerOf = (appId: string, userId = 'user-1'): ErasureMarker => ({
  app_id: appId,
  user_id: userId,
  anonymous_id: 'erased_000000000000000000000001',
  removed: NO_COUNTS,
  started_at: T0.toISOString(),
});

afterEach(stopIntercepting);

describe('the erasure marker and its lease (5 minutes)', () => {
  it('is started once, leased to its starter and found by the job when the lease runs out', async () => {
    const marker = markerOf(newAppId());
    const key = erasureKey(marker.app_id, marker.user_id);
    expect(await startErasure(marker, T0)).toEqual(marker);
    expect(await raw(key)).toEqual({
      ...key,
      ...marker,
      type: 'erasure',
      lease_until: '2026-05-01T10:05:00.000Z',
      due_pk: 'DUE#ERA#2026-05-01',
      due_sk: `2026-05-01T10:05:00.000Z#${key.pk}`,
    });
    // A second start (another request) leaves the marker as it was.
    expect(await startErasure({ ...marker, anonymous_id: 'erased_other' }, at(MINUTE))).toBeUndefined();
    expect(await getErasure(marker.app_id, marker.user_id)).toEqual(marker);
  });

  it('is claimed only once its lease has run out, then leased again; a missing marker is claimed by nobody', async () => {
    const marker = markerOf(newAppId());
    const key = erasureKey(marker.app_id, marker.user_id);
    await startErasure(marker, T0);
    expect(await claimErasure(key, at(4 * MINUTE))).toBeUndefined();
    expect(await claimErasure(key, at(5 * MINUTE))).toBeUndefined();
    expect(await claimErasure(key, at(5 * MINUTE + 1))).toEqual(marker);
    expect(await raw(key)).toMatchObject({
      lease_until: '2026-05-01T10:10:00.001Z',
      due_sk: `2026-05-01T10:10:00.001Z#${key.pk}`,
    });
    expect(await claimErasure(key, at(6 * MINUTE))).toBeUndefined();
    expect(await claimErasure(erasureKey(marker.app_id, 'nobody'), at(60 * MINUTE))).toBeUndefined();
  });

  it('progress is recorded and the lease given back at once; a finished erasure leaves no marker', async () => {
    const marker = markerOf(newAppId());
    const key = erasureKey(marker.app_id, marker.user_id);
    await startErasure(marker, T0);
    const removed = { ...NO_COUNTS, events: 1000, subscriptions_detached: 2 };
    await saveErasureProgress(marker, removed, at(MINUTE));
    expect(await raw(key)).toMatchObject({
      removed,
      lease_until: '2026-05-01T10:01:00.000Z',
      due_pk: 'DUE#ERA#2026-05-01',
      due_sk: `2026-05-01T10:01:00.000Z#${key.pk}`,
    });
    expect(await claimErasure(key, at(MINUTE + 1))).toEqual({ ...marker, removed });
    expect(await finishErasureOnceDetached(marker, [])).toBe(true);
    expect(await raw(key)).toBeUndefined();
    expect(await getErasure(marker.app_id, marker.user_id)).toBeUndefined();
  });

  it("ends only once what it detached is not the user's again: the check and the delete in one transaction", async () => {
    const appId = newAppId();
    const marker = markerOf(appId);
    const key = erasureKey(appId, marker.user_id);
    const subscription = await seedSubscription(appId, { user_id: 'user-1' });
    const subscriptionKey = keys.subscription(appId, subscription.id);
    await startErasure(marker, T0);
    const sent = interceptCommands();
    // Still the user's (as after a write that read the detached version put the user back): the marker stays.
    expect(await finishErasureOnceDetached(marker, [subscriptionKey])).toBe(false);
    expect(sent.map(({ command }) => command)).toEqual(['TransactWriteItemsCommand']);
    expect(sent[0]!.input.TransactItems.map((item: object) => Object.keys(item)[0])).toEqual([
      'ConditionCheck',
      'Delete',
    ]);
    expect(await raw(key)).toBeDefined();
    expect((await detachSubscription(subscriptionKey, appId, 'user-1', marker.anonymous_id)).outcome).toBe('detached');
    // Detached, and one deleted since (not the user's either): the marker goes.
    expect(await finishErasureOnceDetached(marker, [subscriptionKey, keys.subscription(appId, 'sub_gone')])).toBe(true);
    expect(await raw(key)).toBeUndefined();
  });

  it('more detached subscriptions than one transaction holds are read first, then the marker deleted', async () => {
    const appId = newAppId();
    const marker = markerOf(appId);
    const key = erasureKey(appId, marker.user_id);
    const subscription = await seedSubscription(appId, { user_id: 'user-1' });
    const detached = [
      keys.subscription(appId, subscription.id),
      ...Array.from({ length: 99 }, (_, i) => keys.subscription(appId, `sub_gone_${i}`)),
    ];
    await startErasure(marker, T0);
    const sent = interceptCommands();
    expect(await finishErasureOnceDetached(marker, detached)).toBe(false);
    expect(sent.map(({ command }) => command)).toEqual(['BatchGetItemCommand']);
    expect(await raw(key)).toBeDefined();
    await detachSubscription(detached[0]!, appId, 'user-1', marker.anonymous_id);
    expect(await finishErasureOnceDetached(marker, detached)).toBe(true);
    expect(await raw(key)).toBeUndefined();
    // As many as one transaction holds with the marker's delete (99): checked in it.
    await startErasure(marker, T0);
    sent.length = 0;
    expect(await finishErasureOnceDetached(marker, detached.slice(1))).toBe(true);
    expect(sent.map(({ command }) => command)).toEqual(['TransactWriteItemsCommand']);
    expect(sent[0]!.input.TransactItems).toHaveLength(100);
    // Nothing detached: the marker's delete alone.
    await startErasure(marker, T0);
    sent.length = 0;
    expect(await finishErasureOnceDetached(marker, [])).toBe(true);
    expect(sent.map(({ command }) => command)).toEqual(['DeleteItemCommand']);
    expect(await raw(key)).toBeUndefined();
  });

  it('a failure other than a held lease is not taken for one', async () => {
    const marker = markerOf(newAppId());
    const key = erasureKey(marker.app_id, marker.user_id);
    interceptCommands(async () => {
      throw throttled();
    });
    await expect(startErasure(marker, T0)).rejects.toThrow('throughput exceeded');
    await expect(claimErasure(key, T0)).rejects.toThrow('throughput exceeded');
  });
});

describe("the user's partitions and subscriptions", () => {
  it('a partition is deleted a bounded step at a time, and says whether more may be left', async () => {
    const pk = `TEST#${run}#partition`;
    await batchWriteAll(Array.from({ length: 5 }, (_, i) => putRequest({ pk, sk: `item-${i}` })));
    expect(await deleteFromPartition(pk, 3)).toEqual({ sortKeys: ['item-0', 'item-1', 'item-2'], more: true });
    expect(await deleteFromPartition(pk, 3)).toEqual({ sortKeys: ['item-3', 'item-4'], more: false });
    expect(await deleteFromPartition(pk, 3)).toEqual({ sortKeys: [], more: false });
  });

  it("the user's subscriptions are listed by key, at most as many as asked", async () => {
    const appId = newAppId();
    const seeded = await Promise.all([1, 2, 3].map(() => seedSubscription(appId, { user_id: 'user-1' })));
    await seedSubscription(appId, { user_id: 'someone-else' });
    const all = await subscriptionKeysOfUser(appId, 'user-1', 10);
    expect(all.sort((a, b) => a.pk.localeCompare(b.pk))).toEqual(
      seeded.map((s) => keys.subscription(appId, s.id)).sort((a, b) => a.pk.localeCompare(b.pk)),
    );
    expect(await subscriptionKeysOfUser(appId, 'user-1', 2)).toHaveLength(2);
  });

  it("a subscription moves to the anonymous id, out of the user's index, with its purchase; a second move finds it gone", async () => {
    const appId = newAppId();
    const subscription = await seedSubscription(appId, { user_id: 'user-1', original_transaction_id: 'otx-1' });
    const purchase = keys.purchase(appId, 'otx-1');
    await ddb.send(new PutCommand({ TableName: tableName, Item: { ...purchase, owner_user_id: 'user-1' } }));
    const key = keys.subscription(appId, subscription.id);

    expect((await detachSubscription(key, appId, 'user-1', 'erased_1')).outcome).toBe('detached');
    expect(await raw(key)).toMatchObject({ user_id: 'erased_1', user_pk: keys.userSubscriptions(appId, 'erased_1') });
    expect(await raw(purchase)).toMatchObject({ owner_user_id: 'erased_1' });
    expect(await subscriptionKeysOfUser(appId, 'user-1', 10)).toEqual([]);

    expect((await detachSubscription(key, appId, 'user-1', 'erased_2')).outcome).toBe('gone');
    expect(await raw(key)).toMatchObject({ user_id: 'erased_1' });
  });

  it('a purchase another user owns by now keeps its owner; a subscription without a purchase moves alone', async () => {
    const appId = newAppId();
    const transferred = await seedSubscription(appId, { user_id: 'user-1', original_transaction_id: 'otx-2' });
    const purchase = keys.purchase(appId, 'otx-2');
    await ddb.send(new PutCommand({ TableName: tableName, Item: { ...purchase, owner_user_id: 'user-2' } }));
    expect(
      (await detachSubscription(keys.subscription(appId, transferred.id), appId, 'user-1', 'erased_1')).outcome,
    ).toBe('detached');
    expect(await raw(purchase)).toMatchObject({ owner_user_id: 'user-2' });

    const alone = await seedSubscription(appId, { user_id: 'user-1', original_transaction_id: null });
    expect((await detachSubscription(keys.subscription(appId, alone.id), appId, 'user-1', 'erased_1')).outcome).toBe(
      'detached',
    );
    expect(await raw(keys.subscription(appId, alone.id))).toMatchObject({ user_id: 'erased_1' });
  });

  it("the detach is a new version: a writer that read the user's version is refused and cannot put the user back", async () => {
    const appId = newAppId();
    const read = await seedSubscription(appId, { user_id: 'user-1' });
    const key = keys.subscription(appId, read.id);
    expect((await detachSubscription(key, appId, 'user-1', 'erased_1')).outcome).toBe('detached');
    expect(await raw(key)).toMatchObject({ user_id: 'erased_1', version: read.version + 1 });
    // A toggle of auto_renew that read the subscription before the detach, written after it.
    const late = await saveSubscriptionState(read, { ...read, auto_renew: false }, new Date(), {
      statusChange: null,
      cause: { by: 'api', action: 'update' },
    });
    expect(late).toEqual({ saved: false, reason: 'version_conflict' });
    expect(await raw(key)).toMatchObject({ user_id: 'erased_1', auto_renew: true });
  });

  it("leaves nothing of the user on the subscription's items: bindings of every transaction, the purchase's owner and app account token, transfers (both copies), the receipt", async () => {
    const appId = newAppId();
    const token = appAccountTokenFor(appId, 'user-1');
    const subscription = await seedSubscription(appId, { user_id: 'user-1', original_transaction_id: 'otx-9' });
    const other = await seedSubscription(appId, { user_id: 'user-2' });
    const key = keys.subscription(appId, subscription.id);
    const transfer = {
      from_user_id: 'user-1',
      to_user_id: 'user-2',
      from_subscription_id: subscription.id,
      to_subscription_id: other.id,
      original_transaction_id: 'otx-9',
      transferred_at: T0.toISOString(),
      event_id: 'evt_1',
    };
    const transferKeys = [subscription.id, other.id].map((id) =>
      keys.subscriptionTransfer(appId, id, transfer.transferred_at, transfer.event_id),
    );
    const storeState = { original_transaction_id: 'otx-9', app_account_token: token, as_of: T0.toISOString() };
    await batchWriteAll([
      putRequest({
        ...keys.purchase(appId, 'otx-9'),
        subscription_id: subscription.id,
        user_id: 'user-1',
        owner_user_id: 'user-1',
        store_state: storeState,
        store_as_of: storeState.as_of,
      }),
      putRequest({ ...keys.transaction(appId, 'txn-renewal'), subscription_id: subscription.id, user_id: 'user-1' }),
      putRequest({
        ...keys.subscriptionPayment(appId, subscription.id),
        transaction_id: 'txn-renewal',
        [BOUND_TRANSACTIONS_ATTRIBUTE]: new Set(['otx-9', 'txn-renewal']),
      }),
      putRequest(receiptItem(subscription, `receipt naming ${token}`)),
      ...transferKeys.map((transferKey) => putRequest({ ...transferKey, type: 'subscription_transfer', ...transfer })),
    ]);

    const sent = interceptCommands();
    // The renewal's binding on its own, then the five items of the transaction: six items of the erasure's budget.
    expect(await detachSubscription(key, appId, 'user-1', 'erased_1')).toEqual({ outcome: 'detached', written: 6 });
    // The state, the purchase, both transfers and the receipt: one transaction.
    const transactions = sent.filter(({ command }) => command === 'TransactWriteItemsCommand');
    const written = transactions.map(({ input }) =>
      input.TransactItems.map((item: Record<string, any>) => {
        const [write] = Object.values(item);
        return write.Key?.pk ?? write.Item.pk;
      }),
    );
    expect(written.at(-1)!.sort()).toEqual(
      [key.pk, keys.purchase(appId, 'otx-9').pk, key.pk, key.pk, transferKeys[1]!.pk].sort(),
    );

    expect(await raw(keys.purchase(appId, 'otx-9'))).toMatchObject({
      user_id: 'erased_1',
      owner_user_id: 'erased_1',
      store_state: { ...storeState, app_account_token: null },
    });
    expect(await raw(keys.transaction(appId, 'txn-renewal'))).toMatchObject({ user_id: 'erased_1' });
    for (const transferKey of transferKeys)
      expect(await raw(transferKey)).toMatchObject({ from_user_id: 'erased_1', to_user_id: 'user-2' });
    expect(await raw(keys.subscriptionReceipt(appId, subscription.id))).toBeUndefined();
  });

  it('a transaction refused half-way changes nothing; the erasure finds the subscription again and finishes', async () => {
    const appId = newAppId();
    const subscription = await seedSubscription(appId, { user_id: 'user-1', original_transaction_id: 'otx-4' });
    const purchase = keys.purchase(appId, 'otx-4');
    await ddb.send(new PutCommand({ TableName: tableName, Item: { ...purchase, owner_user_id: 'user-1' } }));
    await ddb.send(new PutCommand({ TableName: tableName, Item: receiptItem(subscription, 'a receipt') }));
    const key = keys.subscription(appId, subscription.id);
    interceptCommands(async ({ command }, send) => {
      if (command === 'TransactWriteItemsCommand') throw throttled();
      return send();
    });
    await expect(detachSubscription(key, appId, 'user-1', 'erased_1')).rejects.toThrow('throughput exceeded');
    stopIntercepting();
    expect(await raw(key)).toMatchObject({ user_id: 'user-1', version: subscription.version });
    expect(await raw(purchase)).toMatchObject({ owner_user_id: 'user-1' });
    expect(await raw(keys.subscriptionReceipt(appId, subscription.id))).toBeDefined();
    expect((await detachSubscription(key, appId, 'user-1', 'erased_1')).outcome).toBe('detached');
    expect(await raw(purchase)).toMatchObject({ owner_user_id: 'erased_1' });
  });

  it('a failure of the transaction that moves the subscription and its purchase, other than a refused condition, fails the step', async () => {
    const appId = newAppId();
    const subscription = await seedSubscription(appId, { user_id: 'user-1', original_transaction_id: 'otx-3' });
    await ddb.send(
      new PutCommand({ TableName: tableName, Item: { ...keys.purchase(appId, 'otx-3'), owner_user_id: 'user-1' } }),
    );
    interceptCommands(async ({ command }, send) => {
      if (command === 'TransactWriteItemsCommand') throw throttled();
      return send();
    });
    await expect(
      detachSubscription(keys.subscription(appId, subscription.id), appId, 'user-1', 'erased_1'),
    ).rejects.toThrow('throughput exceeded');
  });
});
