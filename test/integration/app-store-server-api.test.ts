import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../lib/core/config.js';
import { appStoreVerifier } from '../../lib/stores/app-store.js';
import { flipByte, RECEIPT_ROOT, signedAppReceipt, unsignedAppReceipt } from '../support/app-receipts.js';
import {
  type AppStoreStandIn,
  appStoreTransaction,
  STAND_IN_ROOT,
  signedByStandIn,
  startAppStoreStandIn,
} from '../support/app-store-standin.js';
import { appErrorOf } from '../support/assertions.js';

const BUNDLE = 'com.example.subs';
/** A receipt of this app listing these transactions, signed by the stand-in's receipt chain. */
const appReceipt = (...transactionIds: string[]) =>
  signedAppReceipt({ bundleId: BUNDLE, purchases: transactionIds.map((transactionId) => ({ transactionId })) });

describe('legacy app receipts through the App Store Server API (local stand-in over HTTP)', () => {
  let standIn: AppStoreStandIn;
  const verifier = {
    verify: (receiptData: string) =>
      appStoreVerifier(
        { bundleId: BUNDLE, environment: 'Sandbox', serverApi: standIn.credentials },
        [STAND_IN_ROOT],
        [RECEIPT_ROOT],
      ).verify(receiptData),
  };
  beforeAll(async () => {
    standIn = await startAppStoreStandIn(BUNDLE);
    config.appStoreServerApiBaseUrl = standIn.url;
  });
  afterAll(() => {
    config.appStoreServerApiBaseUrl = undefined;
    return standIn?.close();
  });

  it('verifies the receipt, asks the API with a signed bearer token, and returns the latest renewal', async () => {
    const first = appStoreTransaction(BUNDLE, {
      purchaseDate: Date.now() - 40 * 86_400_000,
      expiresDate: Date.now() - 10 * 86_400_000,
    });
    const renewal = appStoreTransaction(BUNDLE, {
      originalTransactionId: first.originalTransactionId,
      purchaseDate: Date.now() - 86_400_000,
    });
    standIn.transactions.set(String(first.transactionId), first);
    standIn.transactions.set(String(renewal.transactionId), renewal);
    const result = await verifier.verify(appReceipt(String(first.transactionId)));
    expect(result).toMatchObject({
      store: 'app_store',
      transaction_id: renewal.transactionId,
      original_transaction_id: first.originalTransactionId,
      expires_at: new Date(Number(renewal.expiresDate)).toISOString(),
      price: 9.99,
      currency: 'USD',
    });
    expect(standIn.requests.some((r) => r.startsWith(`/inApps/v1/transactions/${first.transactionId}`))).toBe(true);
    expect(standIn.requests.some((r) => r.startsWith(`/inApps/v1/subscriptions/${first.transactionId}`))).toBe(true);
  });

  it("asks about the receipt's latest subscription, not a consumable or an older subscription listed first", async () => {
    const old = appStoreTransaction(BUNDLE, {
      purchaseDate: Date.now() - 400 * 86_400_000,
      expiresDate: Date.now() - 300 * 86_400_000,
    });
    const current = appStoreTransaction(BUNDLE, { purchaseDate: Date.now() - 86_400_000 });
    standIn.transactions.set(String(old.transactionId), old);
    standIn.transactions.set(String(current.transactionId), current);
    const receipt = signedAppReceipt({
      bundleId: BUNDLE,
      purchases: [
        { transactionId: '3000000000000001' }, // a consumable: no expiration date
        { transactionId: String(old.transactionId), expiresAt: new Date(Number(old.expiresDate)) },
        { transactionId: String(current.transactionId), expiresAt: new Date(Number(current.expiresDate)) },
      ],
    });
    const before = standIn.requests.length;
    expect((await verifier.verify(receipt)).original_transaction_id).toBe(current.originalTransactionId);
    expect(standIn.requests.slice(before)[0]).toMatch(new RegExp(`^/inApps/v1/transactions/${current.transactionId}`));
  });

  it('a transaction the App Store does not know is INVALID_RECEIPT', async () => {
    // A Sandbox app asks the sandbox once: only a Production app asks it again.
    const asked = standIn.requests.length;
    expect(await appErrorOf(verifier.verify(appReceipt('2000000999999999')))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: "the App Store does not know this receipt's transaction (404)",
      retryable: false,
    });
    expect(standIn.requests.length - asked).toBe(1);
  });

  it.each([
    [4040002, 'AccountNotFoundRetryableError'],
    [4040004, 'AppNotFoundRetryableError'],
    [4040006, 'OriginalTransactionIdNotFoundRetryableError'],
  ])("Apple's 404 %i (%s) says to try again: VERIFICATION_FAILED, retryable", async (errorCode) => {
    const tx = appStoreTransaction(BUNDLE);
    standIn.transactions.set(String(tx.transactionId), tx);
    standIn.answerNext(String(tx.transactionId), 404, { errorCode, errorMessage: 'Not found. Please try again.' });
    expect(await appErrorOf(verifier.verify(appReceipt(String(tx.transactionId))))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the App Store Server API answered 404; retry',
      retryable: true,
    });
  });

  it('refused credentials, 5xx and timeouts are VERIFICATION_FAILED, retryable', async () => {
    const tx = appStoreTransaction(BUNDLE);
    standIn.transactions.set(String(tx.transactionId), tx);
    const receipt = appReceipt(String(tx.transactionId));
    const wrongKey = appStoreVerifier(
      { bundleId: BUNDLE, environment: 'Sandbox', serverApi: { ...standIn.credentials, key_id: 'OTHERKEY' } },
      [STAND_IN_ROOT],
      [RECEIPT_ROOT],
    );
    expect(await appErrorOf(wrongKey.verify(receipt))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the App Store Server API refused our credentials (stores apple set --issuer-id --key-id --key-file)',
      retryable: true,
    });
    standIn.failNext(String(tx.transactionId), 500);
    const failed = await appErrorOf(verifier.verify(receipt));
    expect(failed).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the App Store Server API answered 500; retry',
      retryable: true,
    });
    // Apple's errorCode travels in the cause, for the log.
    expect((failed.cause as Error).message).toBe('App Store Server API answered 500 (5000000)');
    standIn.failNext(String(tx.transactionId), 'hang');
    expect(await appErrorOf(verifier.verify(receipt))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the App Store Server API did not answer (timeout); retry',
      retryable: true,
    });
    expect((await verifier.verify(receipt)).transaction_id).toBe(tx.transactionId);
  }, 20_000);

  it('an answer without the transaction is INVALID_RECEIPT; a Production app asks the sandbox only after a 404', async () => {
    const tx = appStoreTransaction(BUNDLE);
    standIn.transactions.set(String(tx.transactionId), tx);
    const receipt = appReceipt(String(tx.transactionId));
    standIn.answerNext(`/inApps/v1/transactions/${tx.transactionId}`, 200, {});
    expect(await appErrorOf(verifier.verify(receipt))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'the App Store returned no transaction for this receipt',
    });
    // The stand-in answers both environments: a 503 in production must not be taken for "ask the sandbox".
    const production = appStoreVerifier(
      { bundleId: BUNDLE, environment: 'Production', appAppleId: 1234, serverApi: standIn.credentials },
      [STAND_IN_ROOT],
      [RECEIPT_ROOT],
    );
    standIn.failNext(`/inApps/v1/transactions/${tx.transactionId}`, 503);
    const asked = standIn.requests.length;
    expect(await appErrorOf(production.verify(receipt))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the App Store Server API answered 503; retry',
    });
    expect(standIn.requests.length - asked).toBe(1);
  });

  it('a 400 is INVALID_RECEIPT as a 404 is, with the answer as the cause', async () => {
    const tx = appStoreTransaction(BUNDLE);
    standIn.transactions.set(String(tx.transactionId), tx);
    standIn.failNext(String(tx.transactionId), 400);
    const refused = await appErrorOf(verifier.verify(appReceipt(String(tx.transactionId))));
    expect(refused).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: "the App Store does not know this receipt's transaction (400)",
      retryable: false,
    });
    expect((refused.cause as Error).message).toBe('App Store Server API answered 400 (4000000)');
  });

  it('a key that is no .p8 private key is VERIFICATION_FAILED, retryable, naming the command that sets it', async () => {
    const tx = appStoreTransaction(BUNDLE);
    standIn.transactions.set(String(tx.transactionId), tx);
    const badKey = appStoreVerifier(
      { bundleId: BUNDLE, environment: 'Sandbox', serverApi: { ...standIn.credentials, private_key: 'not a key' } },
      [STAND_IN_ROOT],
      [RECEIPT_ROOT],
    );
    const refused = await appErrorOf(badKey.verify(appReceipt(String(tx.transactionId))));
    expect(refused).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the App Store Server API key is not a valid .p8 private key (stores apple set --key-file)',
      retryable: true,
    });
    expect(refused.cause).toBeInstanceOf(Error);
  });

  it('without App Store Server API credentials a legacy receipt is VERIFICATION_FAILED (configure them)', async () => {
    const noKey = appStoreVerifier({ bundleId: BUNDLE, environment: 'Sandbox' }, [STAND_IN_ROOT], [RECEIPT_ROOT]);
    const error = await appErrorOf(noKey.verify(appReceipt('2000000000000001')));
    expect(error).toMatchObject({ code: 'VERIFICATION_FAILED', retryable: true });
    expect(error.message).toContain('stores apple set');
  });

  it("the stand-in's signatures are worthless to a verifier that trusts only Apple's root", async () => {
    const appleOnly = appStoreVerifier({ bundleId: BUNDLE, environment: 'Sandbox' });
    const error = await appErrorOf(appleOnly.verify(signedByStandIn(appStoreTransaction(BUNDLE))));
    expect(error.code).toBe('INVALID_RECEIPT');
  });

  it('a receipt without a valid signature is INVALID_RECEIPT, and the App Store is not asked about it', async () => {
    const tx = appStoreTransaction(BUNDLE);
    standIn.transactions.set(String(tx.transactionId), tx);
    const before = standIn.requests.length;
    for (const receipt of [
      unsignedAppReceipt(BUNDLE, String(tx.transactionId)),
      signedAppReceipt(
        { bundleId: BUNDLE, purchases: [{ transactionId: String(tx.transactionId) }] },
        { tamperContent: (content) => flipByte(content) },
      ),
    ]) {
      expect(await appErrorOf(verifier.verify(receipt))).toMatchObject({
        code: 'INVALID_RECEIPT',
        message: expect.stringContaining('app receipt rejected'),
      });
    }
    expect(standIn.requests.length).toBe(before);
  });

  it('a genuine receipt under a root we do not trust, or of another app, is INVALID_RECEIPT', async () => {
    const tx = appStoreTransaction(BUNDLE);
    standIn.transactions.set(String(tx.transactionId), tx);
    const appleOnly = appStoreVerifier({ bundleId: BUNDLE, environment: 'Sandbox', serverApi: standIn.credentials }, [
      STAND_IN_ROOT,
    ]);
    expect(await appErrorOf(appleOnly.verify(appReceipt(String(tx.transactionId))))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: expect.stringContaining("not signed by Apple's"),
    });
    const otherApp = signedAppReceipt({
      bundleId: 'com.example.other',
      purchases: [{ transactionId: String(tx.transactionId) }],
    });
    expect(await appErrorOf(verifier.verify(otherApp))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: expect.stringContaining('another app'),
    });
  });

  it('only a purchase the receipt lists can be claimed with it: an answer for another original transaction is INVALID_RECEIPT', async () => {
    // The App Store answers for the listed transaction with a transaction of another purchase.
    const listed = appStoreTransaction(BUNDLE);
    standIn.transactions.set(String(listed.transactionId), { ...listed, originalTransactionId: '2000000000000777' });
    const error = await appErrorOf(verifier.verify(appReceipt(String(listed.transactionId))));
    expect(error).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: expect.stringContaining('not a purchase this receipt lists'),
    });
  });

  it('a receipt that lists no in-app purchase is INVALID_RECEIPT', async () => {
    expect(await appErrorOf(verifier.verify(appReceipt()))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: expect.stringContaining('no in-app purchase'),
    });
  });

  it('something that is neither a JWS nor an app receipt is INVALID_RECEIPT', async () => {
    expect((await appErrorOf(verifier.verify(Buffer.from('hello').toString('base64')))).code).toBe('INVALID_RECEIPT');
  });
});
