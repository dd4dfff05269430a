/**
 * The sweeper's question to the App Store (readAppStorePurchaseState: Get All Subscription
 * Statuses, its transaction and renewal info verified and read as a notification's), against the
 * local stand-in over HTTP.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../lib/core/config.js';
import { readAppStorePurchaseState } from '../../lib/stores/app-store-notifications.js';
import { appStoreRenewalInfo } from '../support/app-store-notifications.js';
import {
  type AppStoreStandIn,
  appStoreTransaction,
  STAND_IN_ROOT,
  signedByStandIn,
  startAppStoreStandIn,
} from '../support/app-store-standin.js';
import { appErrorOf } from '../support/assertions.js';

const BUNDLE = 'com.example.subs';
const DAY = 86_400_000;

describe('the App Store state of a purchase, read for the sweeper (local stand-in over HTTP)', () => {
  let standIn: AppStoreStandIn;
  let settings: Parameters<typeof readAppStorePurchaseState>[0];
  beforeAll(async () => {
    standIn = await startAppStoreStandIn(BUNDLE);
    config.appStoreServerApiBaseUrl = standIn.url;
    settings = { bundleId: BUNDLE, environment: 'Sandbox', serverApi: standIn.credentials };
  });
  afterAll(() => {
    config.appStoreServerApiBaseUrl = undefined;
    return standIn?.close();
  });

  /** A purchase whose first period ended yesterday, renewed by the store while the app stayed closed. */
  function renewedPurchase(renewal: Record<string, unknown> = {}) {
    const first = appStoreTransaction(BUNDLE, { purchaseDate: Date.now() - 31 * DAY, expiresDate: Date.now() - DAY });
    const renewed = appStoreTransaction(BUNDLE, {
      originalTransactionId: first.originalTransactionId,
      purchaseDate: Date.now() - DAY,
      expiresDate: Date.now() + 29 * DAY,
      price: 12990,
      currency: 'EUR',
    });
    standIn.transactions.set(String(first.transactionId), first);
    standIn.transactions.set(String(renewed.transactionId), renewed);
    standIn.renewals.set(String(first.originalTransactionId), appStoreRenewalInfo(renewed, renewal));
    return { first, renewed, original: String(first.originalTransactionId) };
  }

  it('asks with a signed bearer token and returns the latest transaction, its renewal, as of the time it was read', async () => {
    const { renewed, original } = renewedPurchase({ autoRenewProductId: 'premium_yearly' });
    const before = Date.now();
    const state = await readAppStorePurchaseState(settings, 'Sandbox', original, [STAND_IN_ROOT]);
    expect(state).toEqual({
      store: 'app_store',
      platform: 'ios',
      environment: 'Sandbox',
      transaction_id: renewed.transactionId,
      original_transaction_id: original,
      product_id: 'premium_monthly',
      purchase_date: new Date(Number(renewed.purchaseDate)).toISOString(),
      expires_at: new Date(Number(renewed.expiresDate)).toISOString(),
      trial: false,
      price: 12.99,
      currency: 'EUR',
      revoked: false,
      app_account_token: null,
      renewal: {
        auto_renew: true,
        renewal_product_id: 'premium_yearly',
        billing_issue: false,
        grace_period_expires_at: null,
      },
      as_of: expect.any(String),
    });
    expect(Date.parse(state.as_of)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(state.as_of)).toBeLessThanOrEqual(Date.now());
    expect(standIn.requests.at(-1)).toBe(`/inApps/v1/subscriptions/${original}`);
  });

  it('a failed renewal in its grace period is a billing issue until then; an expired one (status 2) renews no more', async () => {
    const graceEnds = Date.now() + 3 * DAY;
    const { original } = renewedPurchase({ isInBillingRetryPeriod: true, gracePeriodExpiresDate: graceEnds });
    standIn.statuses.set(original, 4);
    expect((await readAppStorePurchaseState(settings, 'Sandbox', original, [STAND_IN_ROOT])).renewal).toEqual({
      auto_renew: true,
      renewal_product_id: null,
      billing_issue: true,
      grace_period_expires_at: new Date(graceEnds).toISOString(),
    });
    const ended = renewedPurchase({ autoRenewStatus: 1, expirationIntent: 2 });
    standIn.statuses.set(ended.original, 2);
    expect(
      (await readAppStorePurchaseState(settings, 'Sandbox', ended.original, [STAND_IN_ROOT])).renewal?.auto_renew,
    ).toBe(false);
  });

  it('a refunded latest transaction is revoked; without renewal info the renewal is unknown', async () => {
    const tx = appStoreTransaction(BUNDLE, { revocationDate: Date.now() - 60_000 });
    standIn.transactions.set(String(tx.transactionId), tx);
    const state = await readAppStorePurchaseState(settings, 'Sandbox', String(tx.originalTransactionId), [
      STAND_IN_ROOT,
    ]);
    expect(state).toMatchObject({ transaction_id: tx.transactionId, revoked: true, renewal: null });
  });

  it("a Production app's sandbox purchase is read in the sandbox; a Sandbox app has no Production purchases", async () => {
    const { renewed, original } = renewedPurchase();
    const production = { ...settings, environment: 'Production' as const };
    expect((await readAppStorePurchaseState(production, 'Sandbox', original, [STAND_IN_ROOT])).transaction_id).toBe(
      renewed.transactionId,
    );
    // The answer must be of the environment asked: the stand-in's transactions are Sandbox ones.
    expect(
      await appErrorOf(readAppStorePurchaseState(production, 'Production', original, [STAND_IN_ROOT])),
    ).toMatchObject({
      code: 'INVALID_NOTIFICATION',
      message: 'App Store subscription status rejected: its signed transaction: it belongs to another environment',
    });
    expect(
      await appErrorOf(readAppStorePurchaseState(settings, 'Production', original, [STAND_IN_ROOT])),
    ).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'the purchase is of an environment this app does not take',
    });
  });

  it('answers not signed by a root we trust are refused; a purchase the App Store does not know is INVALID_RECEIPT', async () => {
    const { original } = renewedPurchase();
    expect(await appErrorOf(readAppStorePurchaseState(settings, 'Sandbox', original))).toMatchObject({
      code: 'INVALID_NOTIFICATION',
      message: expect.stringContaining('the signature or certificate chain does not verify'),
    });
    expect(
      await appErrorOf(readAppStorePurchaseState(settings, 'Sandbox', '2000000999999999', [STAND_IN_ROOT])),
    ).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'the App Store does not know this purchase (404)',
    });
  });

  it('no credentials, refused credentials, 5xx and timeouts are VERIFICATION_FAILED, retryable', async () => {
    const { original } = renewedPurchase();
    expect(
      await appErrorOf(readAppStorePurchaseState({ bundleId: BUNDLE, environment: 'Sandbox' }, 'Sandbox', original)),
    ).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'reading the App Store needs App Store Server API credentials',
      retryable: true,
    });
    const wrongKey = { ...settings, serverApi: { ...standIn.credentials, key_id: 'OTHERKEY' } };
    expect(await appErrorOf(readAppStorePurchaseState(wrongKey, 'Sandbox', original, [STAND_IN_ROOT]))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      retryable: true,
    });
    standIn.failNext(original, 503);
    expect(await appErrorOf(readAppStorePurchaseState(settings, 'Sandbox', original, [STAND_IN_ROOT]))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      retryable: true,
    });
    standIn.failNext(original, 'hang');
    expect(await appErrorOf(readAppStorePurchaseState(settings, 'Sandbox', original, [STAND_IN_ROOT]))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the App Store Server API did not answer (timeout); retry',
      retryable: true,
    });
    expect(
      (await readAppStorePurchaseState(settings, 'Sandbox', original, [STAND_IN_ROOT])).original_transaction_id,
    ).toBe(original);
  }, 20_000);
  it('an answer of another shape, or with no status of this purchase, is refused saying so; other entries are passed over', async () => {
    const { renewed, original } = renewedPurchase();
    const asked = () => readAppStorePurchaseState(settings, 'Sandbox', original, [STAND_IN_ROOT]);
    standIn.answerNext(original, 200, { data: 'not a list' });
    expect(await appErrorOf(asked())).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the App Store Server API did not answer (its answer is not in the documented format); retry',
      retryable: true,
    });
    // A purchase the API lists, whose latest transaction is no auto-renewable subscription.
    const { expiresDate: _, ...oneTime } = appStoreTransaction(BUNDLE, { originalTransactionId: original });
    standIn.answerNext(original, 200, {
      data: [
        {
          lastTransactions: [
            { originalTransactionId: original, status: 1, signedTransactionInfo: signedByStandIn(oneTime) },
          ],
        },
      ],
    });
    expect(await appErrorOf(asked())).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'the App Store lists this purchase, but not as a subscription',
    });
    standIn.answerNext(original, 200, { data: [] });
    expect(await appErrorOf(asked())).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'the App Store lists no subscription status for this purchase',
    });
    // Another purchase of the group first, then this one without its transaction, then this one.
    const other = appStoreTransaction(BUNDLE, { purchaseDate: Date.now() - DAY, expiresDate: Date.now() + DAY });
    standIn.answerNext(original, 200, {
      data: [
        {
          lastTransactions: [
            {
              originalTransactionId: String(other.originalTransactionId),
              status: 1,
              signedTransactionInfo: signedByStandIn(other),
            },
            { originalTransactionId: original, status: 1 },
            { originalTransactionId: original, status: 1, signedTransactionInfo: signedByStandIn(renewed) },
          ],
        },
      ],
    });
    expect((await asked()).transaction_id).toBe(renewed.transactionId);
  });

  it("a refusal keeps the API's answer as its cause, with Apple's error code when it sent one", async () => {
    const { original } = renewedPurchase();
    const asked = () => readAppStorePurchaseState(settings, 'Sandbox', original, [STAND_IN_ROOT]);
    standIn.failNext(original, 503);
    expect((await appErrorOf(asked())).cause).toMatchObject({ message: 'App Store Server API answered 503 (5030000)' });
    standIn.answerNext(original, 503, 'Service Unavailable');
    const plain = await appErrorOf(asked());
    expect(plain.message).toBe('the App Store Server API answered 503; retry');
    expect(plain.cause).toMatchObject({ message: 'App Store Server API answered 503' });
  });
});
