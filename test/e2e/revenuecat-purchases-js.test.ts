/**
 * `@revenuecat/purchases-js` (MIT, a dev dependency) as its users call it, configured against this
 * service's root (`httpConfig.proxyURL`) with analytics off (`flags.collectAnalyticsEvents`): it
 * builds every request and decodes every answer itself (its dist/Purchases.es.js: `Am` the
 * headers, `PI` the key check, `identify` reading 201 as `was_created`, `_l` the customer info).
 * Run in this test's Node, whose fetch is what it calls. `getOfferings` asks for the offerings,
 * then `/rcbilling/v1/subscribers/{id}/products?id=…` for their web products (`Ju`, `getProducts`),
 * and keeps a package only with its product. Buying one (web billing's checkout) is issue #41's.
 */
import { ErrorCode, Purchases, PurchasesError } from '@revenuecat/purchases-js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { putOfferings } from '../../lib/data/offerings.js';
import { readProfile } from '../../lib/data/profiles.js';
import { CUSTOMERS_BASE } from '../../lib/routes.js';
import { createTestApp, PREMIUM_MONTHLY, PRO_YEARLY, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mintReceipt } from '../support/receipts.js';
import { iosHeaders, iosPurchase } from '../support/revenuecat-requests.js';

const { send, url } = useGateway();

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  await putEntitlements(app.appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
  // premium_monthly is sold on the web; pro_yearly is not (the catalogue's platforms).
  await putOfferings(
    app.appId,
    {
      current: 'standard',
      offerings: [
        {
          id: 'standard',
          description: 'Monthly and yearly',
          packages: [
            { id: '$rc_monthly', products: { ios: 'premium_monthly', web: 'premium_monthly' }, metadata: {} },
            { id: '$rc_annual', products: { ios: 'pro_yearly', web: 'pro_yearly' }, metadata: {} },
          ],
          metadata: {},
        },
      ],
      placements: [],
    },
    [PREMIUM_MONTHLY, PRO_YEARLY],
  );
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

  it("gets the offerings with each web package's catalogue product: price, period and free trial", async () => {
    const purchases = configure(Purchases.generateRevenueCatAnonymousAppUserId());
    const offerings = await purchases.getOfferings();
    const current = offerings.current!;
    expect(current.identifier).toBe('standard');
    // pro_yearly is not sold on the web: purchases-js leaves its package out.
    expect(current.availablePackages.map((p) => p.identifier)).toEqual(['$rc_monthly']);
    expect(current.monthly?.identifier).toBe('$rc_monthly');
    const product = current.availablePackages[0]!.webBillingProduct;
    expect(product).toMatchObject({
      identifier: 'premium_monthly',
      title: PREMIUM_MONTHLY.name,
      normalPeriodDuration: 'P1M',
      currentPrice: { amountMicros: 9_990_000, currency: 'USD' },
      freeTrialPhase: { periodDuration: 'P7D' },
    });
    expect(product.currentPrice.formattedPrice).toContain('9.99');
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
