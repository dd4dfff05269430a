/**
 * No false expiries: the sweeper, before it expires a store subscription that renews by itself,
 * asks the store (the App Store stand-in over HTTP: Get All Subscription Statuses, signed by the
 * stand-in chain, whose root stands in for Apple's) and applies its answer like a notification;
 * an app without the store's credentials waits STORE_EXPIRY_MARGIN_SECONDS instead.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table: the sweeper's checkpoint and due items are the table's, not one app's.
  process.env.TABLE_NAME = `expiry-store-status-${process.pid}`;
});
vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('../support/stand-in-apple-root.js'));

import { config } from '../../lib/core/config.js';
import { putStoreSettings } from '../../lib/data/store-settings.js';
import { getSubscriptionRecord } from '../../lib/data/subscription-queries.js';
import { insertSubscription } from '../../lib/data/subscription-writes.js';
import { expireDueSubscriptions } from '../../lib/services/expiry.js';
import { appStoreRenewalInfo } from '../support/app-store-notifications.js';
import { type AppStoreStandIn, appStoreTransaction, startAppStoreStandIn } from '../support/app-store-standin.js';
import { createTestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';
import { buildSubscription, TEST_CAUSE } from '../support/subscriptions.js';

const BUNDLE = 'com.example.subs';
const DAY = 86_400_000;

describe('the sweeper asks the store before expiring (App Store stand-in, own table)', () => {
  let standIn: AppStoreStandIn;
  let withKey: string;
  let withoutKey: string;
  const margin = config.storeExpiryMarginSeconds;
  beforeAll(async () => {
    await createOwnTable();
    standIn = await startAppStoreStandIn(BUNDLE);
    config.appStoreServerApiBaseUrl = standIn.url;
    ({ appId: withKey } = await createTestApp());
    await putStoreSettings(withKey, 'app_store', {
      bundle_id: BUNDLE,
      environment: 'Sandbox',
      server_api: standIn.credentials,
    });
    ({ appId: withoutKey } = await createTestApp());
    await putStoreSettings(withoutKey, 'app_store', { bundle_id: BUNDLE, environment: 'Sandbox' });
  });
  afterAll(async () => {
    config.storeExpiryMarginSeconds = margin;
    config.appStoreServerApiBaseUrl = undefined;
    await standIn?.close();
  });

  /** A store subscription whose period ended a minute ago, with auto-renew on, and its purchase. */
  async function lapsed(appId: string) {
    const first = appStoreTransaction(BUNDLE, {
      purchaseDate: Date.now() - 30 * DAY,
      expiresDate: Date.now() - 60_000,
    });
    const original = String(first.originalTransactionId);
    const record = buildSubscription(appId, {
      user_id: `u-${original}`,
      expires_at: new Date(Number(first.expiresDate)).toISOString(),
      store: 'app_store',
      original_transaction_id: original,
      environment: 'sandbox',
    });
    const payment = { transaction_id: original, receipt_data: null, payment_method: 'app_store', last_payment: null };
    expect(
      await insertSubscription(record, payment, {
        owner: { store: 'app_store', original_transaction_id: original },
        cause: TEST_CAUSE,
      }),
    ).toEqual({ inserted: true });
    standIn.transactions.set(original, first);
    return { record, first, original };
  }

  it('a subscription the store renewed while the app stayed closed is renewed, not expired', async () => {
    config.storeExpiryMarginSeconds = 0;
    const { record, first, original } = await lapsed(withKey);
    const renewed = appStoreTransaction(BUNDLE, {
      originalTransactionId: original,
      purchaseDate: Date.now() - 60_000,
      expiresDate: Date.now() + 30 * DAY,
    });
    standIn.transactions.set(String(renewed.transactionId), renewed);
    standIn.renewals.set(original, appStoreRenewalInfo(renewed, {}));
    expect(first.expiresDate).toBeLessThan(Date.now());

    const sweep = await expireDueSubscriptions();
    expect(sweep.failed).toBe(0);
    expect(await getSubscriptionRecord(withKey, record.id)).toMatchObject({
      status: 'active',
      expires_at: new Date(Number(renewed.expiresDate)).toISOString(),
      auto_renew: true,
    });
    expect(standIn.requests).toContain(`/inApps/v1/subscriptions/${original}`);
  });

  it('a subscription the store says has expired is expired', async () => {
    config.storeExpiryMarginSeconds = 0;
    const { record, first, original } = await lapsed(withKey);
    standIn.renewals.set(original, appStoreRenewalInfo(first, { autoRenewStatus: 0 }));
    standIn.statuses.set(original, 2);
    await expireDueSubscriptions();
    expect(await getSubscriptionRecord(withKey, record.id)).toMatchObject({ status: 'expired', auto_renew: false });
  });

  /** A sweep `laterMs` from now (the clock alone moved). */
  const sweepLater = async (laterMs: number) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date(Date.now() + laterMs));
      return await expireDueSubscriptions();
    } finally {
      vi.useRealTimers();
    }
  };
  const statusOf = async (id: string) => (await getSubscriptionRecord(withKey, id))!.status;

  it('a store that cannot be asked is asked again by the next runs for one more margin; then the clock decides', async () => {
    config.storeExpiryMarginSeconds = 40;
    const { record, original } = await lapsed(withKey);
    standIn.failNext(`/inApps/v1/subscriptions/${original}`, 500);
    expect(await expireDueSubscriptions()).toMatchObject({ failed: 1 });
    expect(await statusOf(record.id)).toBe('active');
    // A margin later (the period ended 60 s + 60 s ago, past 2 x 40 s) it still fails: the clock decides.
    standIn.failNext(`/inApps/v1/subscriptions/${original}`, 500);
    expect(await sweepLater(60_000)).toMatchObject({ failed: 0 });
    expect(await statusOf(record.id)).toBe('expired');
  });

  it("Apple's 404 that says to retry is asked again; a plain 404 (a purchase it does not know) lets the clock decide", async () => {
    config.storeExpiryMarginSeconds = 40;
    const { record, original } = await lapsed(withKey);
    const path = `/inApps/v1/subscriptions/${original}`;
    standIn.answerNext(path, 404, {
      errorCode: 4040006,
      errorMessage: 'Original transaction id not found. Please try again.',
    });
    expect(await expireDueSubscriptions()).toMatchObject({ failed: 1 });
    expect(await statusOf(record.id)).toBe('active');
    standIn.answerNext(path, 404, { errorCode: 4040005, errorMessage: 'Original transaction id not found.' });
    expect(await expireDueSubscriptions()).toMatchObject({ failed: 0 });
    expect(await statusOf(record.id)).toBe('expired');
  });

  it('without the store credentials it waits the margin, then the clock expires it', async () => {
    config.storeExpiryMarginSeconds = 3600;
    const { record } = await lapsed(withoutKey);
    await expireDueSubscriptions();
    expect((await getSubscriptionRecord(withoutKey, record.id))!.status).toBe('active');
    const requests = standIn.requests.length;
    // An hour and a minute later, nobody said otherwise: expired, and the store was never asked.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date(Date.now() + 3600_000 + 60_000));
      await expireDueSubscriptions();
    } finally {
      vi.useRealTimers();
    }
    expect((await getSubscriptionRecord(withoutKey, record.id))!.status).toBe('expired');
    expect(standIn.requests.length).toBe(requests);
  });
});
