/**
 * `@revenuecat/purchases-js` (MIT, a dev dependency) as its users call it, configured against this
 * service's root (`httpConfig.proxyURL`) with analytics off (`flags.collectAnalyticsEvents`): it
 * builds every request and decodes every answer itself (its dist/Purchases.es.js: `Am` the
 * headers, `PI` the key check, `identify` reading 201 as `was_created`, `_l` the customer info).
 * Run in this test's Node, whose fetch is what it calls. Not yet: `getOfferings`, which also
 * asks `/rcbilling/v1/subscribers/{id}/products` for web products' prices (web billing, issue #41).
 */
import { ErrorCode, Purchases, PurchasesError } from '@revenuecat/purchases-js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { readProfile } from '../../lib/data/profiles.js';
import { CUSTOMERS_BASE } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mintReceipt } from '../support/receipts.js';
import { iosHeaders, iosPurchase } from '../support/revenuecat-requests.js';

const { send, url } = useGateway();

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
});

function configure(appUserId: string): Purchases {
  return Purchases.configure({
    apiKey: `rcb_${app.sdkKey}`,
    appUserId,
    httpConfig: { proxyURL: url() },
    flags: { collectAnalyticsEvents: false },
  });
}

afterEach(() => {
  if (Purchases.isConfigured()) Purchases.getSharedInstance().close();
});

describe('purchases-js against the service root', () => {
  it('reads the customer info of a new anonymous user: no entitlements, the user recorded', async () => {
    const anonymous = Purchases.generateRevenueCatAnonymousAppUserId();
    const purchases = configure(anonymous);
    const info = await purchases.getCustomerInfo();
    expect(info.originalAppUserId).toBe(anonymous);
    expect(info.entitlements.active).toEqual({});
    expect(info.requestDate.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await purchases.isEntitledTo('pro')).toBe(false);
  });

  it("sees a purchase's entitlement active, and keeps it through identifyUser (anonymous to identified)", async () => {
    const anonymous = Purchases.generateRevenueCatAnonymousAppUserId();
    // The purchase is made by the app on iOS, under the same anonymous id.
    const { receipt_data } = await mintReceipt(app);
    const posted = await send('POST', '/v1/receipts', {
      headers: iosHeaders(app.sdkKey),
      body: JSON.stringify(iosPurchase(anonymous, receipt_data)),
    });
    expect(posted.status, posted.text).toBe(200);

    const purchases = configure(anonymous);
    const info = await purchases.getCustomerInfo();
    expect(info.entitlements.active.pro).toMatchObject({ identifier: 'pro', isActive: true });
    expect(await purchases.isEntitledTo('pro')).toBe(true);

    const user = `web-user-${Date.now()}`;
    const identified = await purchases.identifyUser(user);
    expect(identified.wasCreated).toBe(true);
    expect(purchases.getAppUserId()).toBe(user);
    expect(identified.customerInfo.entitlements.active.pro).toBeDefined();
    expect((await purchases.getCustomerInfo()).originalAppUserId).toBe(user);
  });

  it('sets attributes (reserved and custom): they are kept, the next read works', async () => {
    const anonymous = Purchases.generateRevenueCatAnonymousAppUserId();
    const purchases = configure(anonymous);
    await purchases.setAttributes({ $email: 'web@example.com', plan_source: 'landing' });
    expect((await purchases.getCustomerInfo()).entitlements.all).toEqual({});
    // As the segment rules read them.
    expect((await readProfile(app.appId, anonymous))?.custom_properties).toEqual({
      rc_email: 'web@example.com',
      plan_source: 'landing',
    });
  });

  it('shows a grant as an active promotional entitlement', async () => {
    const user = `granted-${Date.now()}`;
    const granted = await send('POST', `${CUSTOMERS_BASE}/${user}/entitlements/pro/grant`, {
      headers: { authorization: `Bearer ${app.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ duration: 'P1M' }),
    });
    expect(granted.status, granted.text).toBeLessThan(300);
    const info = await configure(user).getCustomerInfo();
    expect(info.entitlements.active.pro).toMatchObject({ isActive: true, store: 'promotional' });
  });

  it('refuses a key that is not an sdk key of an app with its own error', async () => {
    const purchases = Purchases.configure({
      apiKey: 'rcb_pk_not-a-key',
      appUserId: 'someone',
      httpConfig: { proxyURL: url() },
      flags: { collectAnalyticsEvents: false },
    });
    const refusal = await purchases.getCustomerInfo().then(
      () => undefined,
      (error: unknown) => error,
    );
    // It reads our 401's body: RevenueCat's code and our message.
    expect(refusal).toBeInstanceOf(PurchasesError);
    expect(refusal).toMatchObject({
      errorCode: ErrorCode.InvalidCredentialsError,
      underlyingErrorMessage: 'API key is invalid or revoked',
      extra: { backendErrorCode: 7225 },
    });
  });
});
