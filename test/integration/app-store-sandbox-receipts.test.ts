import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECEIPT_ROOT, signedAppReceipt } from '../support/app-receipts.js';
import {
  type AppStoreStandIn,
  appStoreTransaction,
  STAND_IN_ROOT,
  startAppStoreStandIn,
} from '../support/app-store-standin.js';
import { appErrorOf } from '../support/assertions.js';

const BUNDLE = 'com.example.subs';
const appReceipt = (transactionId: unknown) =>
  signedAppReceipt({ bundleId: BUNDLE, purchases: [{ transactionId: String(transactionId) }] });
const asked = (standIn: AppStoreStandIn, from: number) => standIn.requests.slice(from);

/**
 * Apple's rule for a Production app: App Review buys with sandbox accounts against the production
 * build, so a legacy receipt the production App Store Server API does not know (404) is asked of
 * the sandbox API. Two stand-ins over HTTP, one per environment, as Apple's two hosts.
 */
describe("legacy receipts of a Production app: the sandbox is asked what production doesn't know", () => {
  let production: AppStoreStandIn;
  let sandbox: AppStoreStandIn;
  let appStoreVerifier: typeof import('../../lib/stores/app-store.js').appStoreVerifier;
  const verifierFor = (environment: 'Production' | 'Sandbox') =>
    appStoreVerifier(
      { bundleId: BUNDLE, environment, serverApi: production.credentials },
      [STAND_IN_ROOT],
      [RECEIPT_ROOT],
    );

  beforeAll(async () => {
    production = await startAppStoreStandIn(BUNDLE);
    sandbox = await startAppStoreStandIn(BUNDLE);
    // Configuration is read once: lib/ is imported after the URLs point at the stand-ins.
    process.env.APP_STORE_SERVER_API_BASE_URL = production.url;
    process.env.APP_STORE_SERVER_API_SANDBOX_BASE_URL = sandbox.url;
    ({ appStoreVerifier } = await import('../../lib/stores/app-store.js'));
  });
  afterAll(async () => {
    await production?.close();
    await sandbox?.close();
  });

  it('a sandbox purchase: production answers 404, the sandbox knows it, and it keeps its Sandbox environment', async () => {
    const tx = appStoreTransaction(BUNDLE, { environment: 'Sandbox' });
    sandbox.transactions.set(String(tx.transactionId), tx);
    const [fromProduction, fromSandbox] = [production.requests.length, sandbox.requests.length];
    const verified = await verifierFor('Production').verify(appReceipt(tx.transactionId));
    expect(verified).toMatchObject({ environment: 'Sandbox', transaction_id: tx.transactionId });
    expect(asked(production, fromProduction)).toEqual([`/inApps/v1/transactions/${tx.transactionId}`]);
    expect(asked(sandbox, fromSandbox)).toEqual([
      `/inApps/v1/transactions/${tx.transactionId}`,
      `/inApps/v1/subscriptions/${tx.transactionId}`,
    ]);
  });

  it('a production purchase is answered by production; the sandbox is not asked', async () => {
    const tx = appStoreTransaction(BUNDLE, { environment: 'Production' });
    production.transactions.set(String(tx.transactionId), tx);
    const fromSandbox = sandbox.requests.length;
    const verified = await verifierFor('Production').verify(appReceipt(tx.transactionId));
    expect(verified).toMatchObject({ environment: 'Production', transaction_id: tx.transactionId });
    expect(asked(sandbox, fromSandbox)).toEqual([]);
  });

  it('a transient failure of production is retryable and never sends the receipt to the sandbox', async () => {
    const tx = appStoreTransaction(BUNDLE, { environment: 'Sandbox' });
    sandbox.transactions.set(String(tx.transactionId), tx);
    production.failNext(String(tx.transactionId), 503);
    const fromSandbox = sandbox.requests.length;
    const error = await appErrorOf(verifierFor('Production').verify(appReceipt(tx.transactionId)));
    expect(error).toMatchObject({ code: 'VERIFICATION_FAILED', retryable: true });
    expect(asked(sandbox, fromSandbox)).toEqual([]);
  });

  it('a purchase neither environment knows is INVALID_RECEIPT', async () => {
    const error = await appErrorOf(verifierFor('Production').verify(appReceipt('2000000999999998')));
    expect(error).toMatchObject({ code: 'INVALID_RECEIPT' });
    expect(error.message).toContain('(404)');
  });

  it('an app configured for Sandbox asks only the sandbox: production is never asked', async () => {
    const tx = appStoreTransaction(BUNDLE, { environment: 'Sandbox' });
    sandbox.transactions.set(String(tx.transactionId), tx);
    const fromProduction = production.requests.length;
    expect(await verifierFor('Sandbox').verify(appReceipt(tx.transactionId))).toMatchObject({ environment: 'Sandbox' });
    const unknown = await appErrorOf(verifierFor('Sandbox').verify(appReceipt('2000000999999997')));
    expect(unknown.code).toBe('INVALID_RECEIPT');
    expect(asked(production, fromProduction)).toEqual([]);
  });

  it('a production host that answers with a sandbox-signed transaction of another environment is judged by it', async () => {
    // A Sandbox-configured app takes no Production transaction, whichever host hands it over.
    const tx = appStoreTransaction(BUNDLE, { environment: 'Production' });
    sandbox.transactions.set(String(tx.transactionId), tx);
    const error = await appErrorOf(verifierFor('Sandbox').verify(appReceipt(tx.transactionId)));
    expect(error).toMatchObject({ code: 'INVALID_RECEIPT' });
    expect(error.message).toContain('another environment');
  });
});
