/**
 * Google Play real-time developer notifications over HTTP: a stand-in serves Google's OIDC keys,
 * the OAuth token endpoint and purchases.subscriptionsv2, and signs push tokens as Pub/Sub does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GooglePlaySettings } from '../../lib/data/store-settings.js';
import {
  authenticateGooglePlayPush,
  googlePurchaseState,
  JWKS_FAILURE_MEMORY_MS,
  parsePubSubPush,
  readGooglePlayNotification,
  readPushBody,
  verifyPubSubPushToken,
} from '../../lib/stores/google-play-notifications.js';
import { appErrorOf } from '../support/assertions.js';
import {
  money,
  PUSH_SERVICE_ACCOUNT,
  pushBody,
  type StandIn,
  startGooglePlayStandIn,
  subscriptionPurchaseV2,
} from '../support/google-play-standin.js';

const PACKAGE = 'com.example.subs';
const AUDIENCE = 'https://api.example.com/notifications/google-play/app_rtdn';
const EVENT_MS = Date.parse('2026-11-24T20:00:00.000Z');
const START = '2026-08-24T10:00:00.000Z';
const NEXT_MONTH = '2026-12-24T10:00:00.000Z';
const LAST_WEEK = '2026-11-17T10:00:00.000Z';
const IN_GRACE = '2026-12-01T10:00:00.000Z';

const developerNotification = (fields: Record<string, unknown>, packageName = PACKAGE) => ({
  version: '1.0',
  packageName,
  eventTimeMillis: String(EVENT_MS),
  ...fields,
});
const subscriptionNotification = (notificationType: number, purchaseToken: string) =>
  developerNotification({
    subscriptionNotification: { version: '1.0', notificationType, purchaseToken, subscriptionId: 'premium_monthly' },
  });

describe('Google Play notifications: Pub/Sub push, OIDC, subscriptionsv2 (stand-in over HTTP)', () => {
  let standIn: StandIn;
  let settings: GooglePlaySettings;
  let endpoints: { tokenUrl: string; apiBaseUrl: string; jwksUrl: string };
  let messages = 0;
  const bearer = (options: Partial<Parameters<StandIn['pushToken']>[0]> = {}) =>
    `Bearer ${standIn.pushToken({ audience: AUDIENCE, ...options })}`;
  /** As the notification function does: the push authenticated, then Google asked. */
  const decodeGooglePlayNotification = async (
    body: unknown,
    authorization: string | undefined,
    appSettings: GooglePlaySettings,
    at: typeof endpoints,
  ) =>
    readGooglePlayNotification(
      await authenticateGooglePlayPush(readPushBody(body), authorization, appSettings, at),
      appSettings,
      at,
    );
  const decode = (body: unknown, authorization: string | null = bearer(), overrides = {}) =>
    decodeGooglePlayNotification(body, authorization ?? undefined, { ...settings, ...overrides }, endpoints);
  const push = (notification: unknown) => pushBody(notification, `1234567890${(messages += 1)}`);

  beforeAll(async () => {
    standIn = await startGooglePlayStandIn(PACKAGE);
    settings = {
      package_name: PACKAGE,
      service_account: standIn.serviceAccount,
      push_audience: AUDIENCE,
      push_service_account: PUSH_SERVICE_ACCOUNT,
    };
    endpoints = { tokenUrl: standIn.tokenUrl, apiBaseUrl: standIn.url, jwksUrl: standIn.jwksUrl };
  });
  afterAll(() => standIn.close());

  describe('every subscription notification type, with the state read from subscriptionsv2', () => {
    interface Row {
      code: number;
      type: string;
      purchase: {
        state: string;
        expiryTime: string;
        autoRenew: boolean;
        product?: string;
        price?: ReturnType<typeof money>;
        testPurchase?: boolean;
        replacementProductId?: string;
      };
      /** The StoreNotification's state fields that the row decides. */
      want: {
        product_id: string;
        expires_at: string;
        price: number;
        currency: string;
        environment: 'Production' | 'Sandbox';
        auto_renew: boolean;
        renewal_product_id: string | null;
        billing_issue: boolean;
        grace_period_expires_at: string | null;
      } | null;
    }
    const active = (expiryTime = NEXT_MONTH, autoRenew = true) => ({
      state: 'SUBSCRIPTION_STATE_ACTIVE',
      expiryTime,
      autoRenew,
    });
    const paid = {
      product_id: 'premium_monthly',
      expires_at: NEXT_MONTH,
      price: 9.99,
      currency: 'USD',
      environment: 'Production' as const,
      auto_renew: true,
      renewal_product_id: null,
      billing_issue: false,
      grace_period_expires_at: null,
    };
    const rows: Row[] = [
      { code: 1, type: 'SUBSCRIPTION_RECOVERED', purchase: active(), want: paid },
      { code: 2, type: 'SUBSCRIPTION_RENEWED', purchase: active(), want: paid },
      {
        code: 3,
        type: 'SUBSCRIPTION_CANCELED',
        purchase: { ...active(), state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false },
        want: { ...paid, auto_renew: false },
      },
      { code: 4, type: 'SUBSCRIPTION_PURCHASED', purchase: active(), want: paid },
      {
        code: 5,
        type: 'SUBSCRIPTION_ON_HOLD',
        purchase: { ...active(LAST_WEEK), state: 'SUBSCRIPTION_STATE_ON_HOLD' },
        want: { ...paid, expires_at: LAST_WEEK, billing_issue: true },
      },
      {
        code: 6,
        type: 'SUBSCRIPTION_IN_GRACE_PERIOD',
        purchase: { ...active(IN_GRACE), state: 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD' },
        want: { ...paid, expires_at: IN_GRACE, billing_issue: true, grace_period_expires_at: IN_GRACE },
      },
      { code: 7, type: 'SUBSCRIPTION_RESTARTED', purchase: active(), want: paid },
      {
        code: 8,
        type: 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED',
        purchase: { ...active(), price: money('EUR', 12.49) },
        want: { ...paid, price: 12.49, currency: 'EUR' },
      },
      {
        code: 9,
        type: 'SUBSCRIPTION_DEFERRED',
        purchase: active('2027-01-24T10:00:00.000Z'),
        want: { ...paid, expires_at: '2027-01-24T10:00:00.000Z' },
      },
      {
        code: 10,
        type: 'SUBSCRIPTION_PAUSED',
        purchase: { ...active(LAST_WEEK), state: 'SUBSCRIPTION_STATE_PAUSED' },
        want: { ...paid, expires_at: LAST_WEEK },
      },
      { code: 11, type: 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED', purchase: active(), want: paid },
      {
        code: 12,
        type: 'SUBSCRIPTION_REVOKED',
        purchase: { ...active(LAST_WEEK, false), state: 'SUBSCRIPTION_STATE_EXPIRED' },
        want: { ...paid, expires_at: LAST_WEEK, auto_renew: false },
      },
      {
        code: 13,
        type: 'SUBSCRIPTION_EXPIRED',
        purchase: { ...active(LAST_WEEK, false), state: 'SUBSCRIPTION_STATE_EXPIRED' },
        want: { ...paid, expires_at: LAST_WEEK, auto_renew: false },
      },
      {
        code: 17,
        type: 'SUBSCRIPTION_ITEMS_CHANGED',
        purchase: { ...active(), product: 'premium_yearly', price: money('USD', 99) },
        want: { ...paid, product_id: 'premium_yearly', price: 99 },
      },
      {
        code: 18,
        type: 'SUBSCRIPTION_CANCELLATION_SCHEDULED',
        purchase: active(NEXT_MONTH, false),
        want: { ...paid, auto_renew: false },
      },
      {
        code: 19,
        type: 'SUBSCRIPTION_PRICE_CHANGE_UPDATED',
        purchase: { ...active(), price: money('USD', 11.99) },
        want: { ...paid, price: 11.99 },
      },
      {
        code: 20,
        type: 'SUBSCRIPTION_PENDING_PURCHASE_CANCELED',
        purchase: { ...active(), state: 'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED' },
        want: null,
      },
      { code: 22, type: 'SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED', purchase: active(), want: paid },
      // A code this version does not know keeps its number, and still brings the state.
      { code: 99, type: 'SUBSCRIPTION_99', purchase: active(), want: paid },
      // Beyond the types: a test purchase, a pending payment, a deferred plan change.
      {
        code: 4,
        type: 'SUBSCRIPTION_PURCHASED',
        purchase: { ...active(), testPurchase: true },
        want: { ...paid, environment: 'Sandbox' },
      },
      {
        code: 4,
        type: 'SUBSCRIPTION_PURCHASED',
        purchase: { ...active(), state: 'SUBSCRIPTION_STATE_PENDING' },
        want: null,
      },
      {
        code: 9,
        type: 'SUBSCRIPTION_DEFERRED',
        purchase: { ...active(), replacementProductId: 'premium_yearly' },
        want: { ...paid, renewal_product_id: 'premium_yearly' },
      },
    ];

    it.each(rows.map((row, i) => ({ ...row, i })))(
      '$code $type ($purchase.state) #$i',
      async ({ code, type, purchase, want, i }) => {
        const token = `rtdn-token-${code}-${i}-000000`;
        const orderId = `GPA.3345-0000-${String(i).padStart(4, '0')}-00003`;
        standIn.purchases.set(
          token,
          subscriptionPurchaseV2(purchase.product ?? 'premium_monthly', {
            state: purchase.state,
            startTime: START,
            expiryTime: purchase.expiryTime,
            autoRenew: purchase.autoRenew,
            orderId,
            ...(purchase.price ? { price: purchase.price } : {}),
            ...(purchase.testPurchase ? { testPurchase: true } : {}),
            ...(purchase.replacementProductId ? { replacementProductId: purchase.replacementProductId } : {}),
          }),
        );
        const messageId = `rtdn-message-${i}`;
        const notification = await decode(pushBody(subscriptionNotification(code, token), messageId));
        expect(notification).toEqual({
          store: 'google_play',
          notification_id: messageId,
          type,
          subtype: null,
          environment: want?.environment ?? 'Production',
          sent_at: '2026-11-24T20:00:00.000Z',
          voided: null,
          state:
            want === null
              ? null
              : {
                  store: 'google_play',
                  platform: 'android',
                  environment: want.environment,
                  transaction_id: orderId,
                  original_transaction_id: token,
                  product_id: want.product_id,
                  purchase_date: START,
                  expires_at: want.expires_at,
                  trial: false,
                  price: want.price,
                  currency: want.currency,
                  revoked: false,
                  app_account_token: null,
                  renewal: {
                    auto_renew: want.auto_renew,
                    renewal_product_id: want.renewal_product_id,
                    billing_issue: want.billing_issue,
                    grace_period_expires_at: want.grace_period_expires_at,
                  },
                  linked_original_transaction_id: null,
                  as_of: '2026-11-24T20:00:00.000Z',
                },
        });
      },
    );
  });

  it("a plan change's new purchase token names the one it replaces (linkedPurchaseToken)", async () => {
    const token = 'rtdn-linked-00000002';
    standIn.purchases.set(token, {
      ...subscriptionPurchaseV2('premium_monthly', { state: 'SUBSCRIPTION_STATE_ACTIVE', startTime: START }),
      linkedPurchaseToken: 'rtdn-linked-00000001',
    });
    const decoded = await decode(
      push(
        developerNotification({
          subscriptionNotification: {
            version: '1.0',
            notificationType: 4,
            purchaseToken: token,
            subscriptionId: 'premium_monthly',
          },
        }),
      ),
    );
    expect(decoded.state).toMatchObject({
      original_transaction_id: token,
      linked_original_transaction_id: 'rtdn-linked-00000001',
    });
  });

  it('a voided subscription is the purchase read from Google, revoked; Google no longer knowing it leaves the voided ids', async () => {
    const token = 'rtdn-voided-00000001';
    standIn.purchases.set(
      token,
      subscriptionPurchaseV2('premium_monthly', {
        state: 'SUBSCRIPTION_STATE_EXPIRED',
        startTime: START,
        expiryTime: LAST_WEEK,
        autoRenew: false,
        orderId: 'GPA.3345-1111-2222-00003',
      }),
    );
    const voided = (purchaseToken: string, productType: number) =>
      developerNotification({
        voidedPurchaseNotification: { purchaseToken, orderId: 'GPA.3345-1111-2222-00003', productType, refundType: 1 },
      });
    const refunded = await decode(push(voided(token, 1)));
    expect(refunded).toMatchObject({
      type: 'VOIDED_PURCHASE',
      subtype: 'REFUND_TYPE_FULL_REFUND',
      environment: 'Production',
      voided: { purchase_token: token, order_id: 'GPA.3345-1111-2222-00003', product_type: 1, refund_type: 1 },
      state: {
        original_transaction_id: token,
        transaction_id: 'GPA.3345-1111-2222-00003',
        revoked: true,
        expires_at: LAST_WEEK,
        price: 9.99,
        currency: 'USD',
        as_of: '2026-11-24T20:00:00.000Z',
      },
    });
    const gone = await decode(push(voided('rtdn-voided-gone-0001', 1)));
    expect(gone).toMatchObject({ type: 'VOIDED_PURCHASE', state: null });
    expect(gone.voided?.purchase_token).toBe('rtdn-voided-gone-0001');
    // A one-time product is not this backend's: recorded, nothing read, nothing changes.
    expect(await decode(push(voided('rtdn-voided-onetime-1', 2)))).toMatchObject({
      state: null,
      voided: { product_type: 2 },
    });
  });

  it('a test notification, a one-time product notification and an unknown kind carry no state', async () => {
    const test = pushBody(developerNotification({ testNotification: { version: '1.0' } }), 'test-message-1');
    expect(await decode(test)).toEqual({
      store: 'google_play',
      notification_id: 'test-message-1',
      type: 'TEST_NOTIFICATION',
      subtype: null,
      environment: 'Production',
      sent_at: '2026-11-24T20:00:00.000Z',
      state: null,
      voided: null,
    });
    const oneTime = developerNotification({
      oneTimeProductNotification: {
        version: '1.0',
        notificationType: 1,
        purchaseToken: 'rtdn-onetime-0000001',
        sku: 'coins',
      },
    });
    expect(await decode(push(oneTime))).toMatchObject({ type: 'ONE_TIME_PRODUCT_PURCHASED', state: null });
    expect(await decode(push(developerNotification({ futureNotification: {} })))).toMatchObject({
      type: 'UNKNOWN_NOTIFICATION',
      state: null,
    });
  });

  it('a push dated in the future (eventTimeMillis or publishTime) is dated now: it cannot make later states stale', async () => {
    const future = (fields: Record<string, unknown>, publishTime?: string) =>
      pushBody(
        { ...developerNotification({ testNotification: { version: '1.0' } }), ...fields },
        `future-${(messages += 1)}`,
        publishTime ? { publishTime } : {},
      );
    for (const body of [
      future({ eventTimeMillis: String(Date.parse('2100-01-01T00:00:00.000Z')) }),
      // Beyond the last date JavaScript has: the publish time stands in, itself in the future.
      future({ eventTimeMillis: '9999999999999999' }, '2100-01-01T00:00:00.000Z'),
    ]) {
      const before = Date.now();
      const { sent_at } = await decode(body);
      expect(Date.parse(sent_at)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(sent_at)).toBeLessThanOrEqual(Date.now());
    }
  });

  it('reads both spellings of the Pub/Sub ids, the body as text too, and falls back to publishTime', () => {
    const data = Buffer.from(JSON.stringify(developerNotification({ testNotification: { version: '1.0' } }))).toString(
      'base64',
    );
    const snake = {
      message: { data, message_id: 'snake-1', publish_time: '2026-11-24T20:00:01.5Z' },
      subscription: 's',
    };
    expect(parsePubSubPush(snake)).toMatchObject({
      messageId: 'snake-1',
      publishTime: '2026-11-24T20:00:01.500Z',
      subscription: 's',
    });
    expect(parsePubSubPush(JSON.stringify(snake)).messageId).toBe('snake-1');
  });

  describe('refusals: INVALID_NOTIFICATION', () => {
    const refusal = async (promise: Promise<unknown>) => {
      const error = await appErrorOf(promise);
      expect(error.code).toBe('INVALID_NOTIFICATION');
      return error.message;
    };
    const genuine = () => push(subscriptionNotification(2, 'rtdn-refused-0000001'));

    it.each([
      ['no token', null, 'no Authorization bearer token'],
      ['not a bearer JWT', 'Basic dXNlcjpwYXNz', 'not a bearer JWT'],
    ])('%s', async (_, authorization, message) => {
      expect(await refusal(decode(genuine(), authorization))).toContain(message);
    });

    it.each([
      ['a signature by another key', { forgeSignature: true }, 'signature does not verify'],
      ['another audience', { audience: 'https://evil.example.com/push' }, 'another audience'],
      ['another issuer', { issuer: 'https://evil.example.com' }, 'not issued by Google'],
      ['an expired token', { expiresAt: Math.floor(Date.now() / 1000) - 61 }, 'expired'],
      ['a token issued in the future', { issuedAt: Math.floor(Date.now() / 1000) + 120 }, 'in the future'],
      ['another service account', { email: 'someone@example.iam.gserviceaccount.com' }, 'another service account'],
      ['an unverified email', { emailVerified: false }, 'not verified'],
      ['an HMAC token', { alg: 'HS256' }, 'not RS256'],
    ])('%s', async (_, options, message) => {
      expect(await refusal(decode(genuine(), bearer(options)))).toContain(message);
    });

    it('tolerates a minute of clock skew', async () => {
      standIn.purchases.set('rtdn-skew-0000000001', subscriptionPurchaseV2('premium_monthly'));
      const body = () => push(subscriptionNotification(2, 'rtdn-skew-0000000001'));
      const now = Math.floor(Date.now() / 1000);
      await decode(body(), bearer({ expiresAt: now - 30, issuedAt: now - 3600 }));
      await decode(body(), bearer({ issuedAt: now + 30 }));
    });

    it('an app without a push audience or push service account accepts none, and says how to set both', async () => {
      // A token for the audience alone is anyone's to get: without the service account nothing is taken.
      for (const missing of [{ push_audience: undefined }, { push_service_account: undefined }]) {
        expect(await refusal(decode(genuine(), bearer({ email: 'anyone@example.com' }), missing))).toContain(
          'stores google set … --push-audience URL --push-service-account EMAIL',
        );
      }
    });

    it('another package, an unknown purchase token, malformed data', async () => {
      expect(
        await refusal(decode(push(developerNotification({ testNotification: { version: '1' } }, 'com.evil')))),
      ).toContain('another app (package com.evil)');
      expect(await refusal(decode(push(subscriptionNotification(2, 'rtdn-unknown-000001'))))).toContain(
        'does not know the purchase token',
      );
      const bodies: [unknown, string][] = [
        [pushBody(null, 'm', { data: 'not base64!' }), 'not base64'],
        [pushBody(null, 'm', { data: Buffer.from('{"version":').toString('base64') }), 'not base64 of JSON'],
        [pushBody(null, 'm', { data: Buffer.from('[1]').toString('base64') }), 'not a DeveloperNotification'],
        [push({ version: '1.0', packageName: PACKAGE }), 'eventTimeMillis'],
        [
          push(developerNotification({ subscriptionNotification: { version: '1.0', notificationType: '2' } })),
          'notificationType',
        ],
        [push(subscriptionNotification(2, 'short')), 'not a Google Play purchase token'],
        [{ subscription: 's' }, 'body.message is not an object'],
        [[], 'not a Pub/Sub push'],
        ['{', 'not JSON'],
        [{ message: { data: 'e30=', publishTime: '2026-11-24T20:00:00Z' } }, 'messageId'],
        [{ message: { data: 'e30=', messageId: '1', publishTime: 'yesterday' } }, 'publishTime'],
      ];
      for (const [body, message] of bodies) expect(await refusal(decode(body)), message).toContain(message);
    });

    it('a body over 64 KB is refused as too large', async () => {
      const body = push(developerNotification({ testNotification: { version: '1.0' }, padding: 'x'.repeat(65_536) }));
      expect(await appErrorOf(decode(body))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    });
  });

  describe("Google's keys: fetched once, cached an hour, refetched for a new kid at most once a minute", () => {
    it('many notifications, one JWKS fetch', async () => {
      const own = await startGooglePlayStandIn(PACKAGE);
      try {
        const tokens = Array.from({ length: 5 }, () => `Bearer ${own.pushToken({ audience: AUDIENCE })}`);
        // Concurrent pushes to a cold function share the fetch; the ones after reuse the set.
        await Promise.all(tokens.map((t) => verifyPubSubPushToken(t, { audience: AUDIENCE }, Date.now(), own.jwksUrl)));
        for (const t of tokens) await verifyPubSubPushToken(t, { audience: AUDIENCE }, Date.now(), own.jwksUrl);
        expect(own.jwksRequests).toBe(1);
      } finally {
        await own.close();
      }
    });

    it('a key Google published since is found by refetching; an unpublished one refetches at most once a minute', async () => {
      const own = await startGooglePlayStandIn(PACKAGE);
      try {
        const verifyAt = (kid: string | undefined, now: number) => {
          const iat = Math.floor(now / 1000);
          const token = own.pushToken({
            audience: AUDIENCE,
            issuedAt: iat,
            expiresAt: iat + 3600,
            ...(kid ? { kid } : {}),
          });
          return verifyPubSubPushToken(`Bearer ${token}`, { audience: AUDIENCE }, now, own.jwksUrl);
        };
        const t0 = Date.now();
        await verifyAt(undefined, t0);
        expect(own.jwksRequests).toBe(1);

        const rotated = own.newOidcKey({ published: true });
        await verifyAt(rotated, t0 + 61_000);
        expect(own.jwksRequests).toBe(2);

        const forged = own.newOidcKey({ published: false });
        const refused = await appErrorOf(verifyAt(forged, t0 + 62_000));
        expect(refused).toMatchObject({ code: 'INVALID_NOTIFICATION' });
        expect(refused.message).toContain('a key Google does not publish');
        // Within the minute, unknown kids cost no fetch.
        await appErrorOf(verifyAt(forged, t0 + 100_000));
        await appErrorOf(verifyAt(own.newOidcKey({ published: false }), t0 + 110_000));
        expect(own.jwksRequests).toBe(2);
        // A minute after the last fetch: one more.
        await appErrorOf(verifyAt(forged, t0 + 122_000));
        expect(own.jwksRequests).toBe(3);
        // Known keys are served from the cache for an hour after the last fetch, then refetched.
        await verifyAt(rotated, t0 + 122_000 + 3_599_000);
        expect(own.jwksRequests).toBe(3);
        await verifyAt(rotated, t0 + 122_000 + 60 * 60_000);
        expect(own.jwksRequests).toBe(4);
      } finally {
        await own.close();
      }
    });

    it('keys that cannot be read are VERIFICATION_FAILED, retryable', async () => {
      const own = await startGooglePlayStandIn(PACKAGE);
      const token = `Bearer ${own.pushToken({ audience: AUDIENCE })}`;
      own.failNext('/oauth2/v3/certs', 503);
      expect(
        await appErrorOf(verifyPubSubPushToken(token, { audience: AUDIENCE }, Date.now(), own.jwksUrl)),
      ).toMatchObject({ code: 'VERIFICATION_FAILED', retryable: true });
      // A failed fetch is not repeated for JWKS_FAILURE_MEMORY_MS; then the keys are fetched again.
      expect(
        await appErrorOf(verifyPubSubPushToken(token, { audience: AUDIENCE }, Date.now(), own.jwksUrl)),
      ).toMatchObject({ code: 'VERIFICATION_FAILED', retryable: true });
      await verifyPubSubPushToken(token, { audience: AUDIENCE }, Date.now() + JWKS_FAILURE_MEMORY_MS, own.jwksUrl);
      const url = own.jwksUrl.replace('/oauth2/v3/certs', '/elsewhere/certs');
      await own.close();
      expect(await appErrorOf(verifyPubSubPushToken(token, { audience: AUDIENCE }, Date.now(), url))).toMatchObject({
        code: 'VERIFICATION_FAILED',
        retryable: true,
      });
    });
  });

  it('subscriptionsv2 unreachable or failing is VERIFICATION_FAILED, retryable (Pub/Sub delivers again)', async () => {
    standIn.purchases.set('rtdn-flaky-000000001', subscriptionPurchaseV2('premium_monthly'));
    const body = () => push(subscriptionNotification(2, 'rtdn-flaky-000000001'));
    standIn.failNext('rtdn-flaky-000000001', 503);
    expect(await appErrorOf(decode(body()))).toMatchObject({ code: 'VERIFICATION_FAILED', retryable: true });
    const down = { ...endpoints, apiBaseUrl: 'http://127.0.0.1:9', tokenUrl: standIn.tokenUrl };
    expect(await appErrorOf(decodeGooglePlayNotification(body(), bearer(), settings, down))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      retryable: true,
    });
    expect((await decode(body())).state?.original_transaction_id).toBe('rtdn-flaky-000000001');
  });

  it('googlePurchaseState: the state now (as_of the read), null while unpaid, INVALID_RECEIPT for an unknown token', async () => {
    standIn.purchases.set(
      'rtdn-state-00000001',
      subscriptionPurchaseV2('premium_monthly', { state: 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD' }),
    );
    const before = Date.now();
    const state = await googlePurchaseState(settings, 'rtdn-state-00000001', endpoints);
    expect(Date.parse(state!.as_of)).toBeGreaterThanOrEqual(before);
    expect(state!.renewal).toMatchObject({ billing_issue: true, grace_period_expires_at: state!.expires_at });
    expect((await googlePurchaseState(settings, 'rtdn-state-00000001', endpoints, START))!.as_of).toBe(START);
    standIn.purchases.set(
      'rtdn-state-pending01',
      subscriptionPurchaseV2('premium_monthly', { state: 'SUBSCRIPTION_STATE_PENDING' }),
    );
    expect(await googlePurchaseState(settings, 'rtdn-state-pending01', endpoints)).toBeNull();
    expect(await appErrorOf(googlePurchaseState(settings, 'rtdn-state-unknown01', endpoints))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'Google Play does not know this purchase token (404)',
    });
  });

  // Last: every notification above was authenticated with the one key set fetched by the first.
  it("all the notifications above cost one fetch of Google's keys", () => {
    expect(messages).toBeGreaterThan(20);
    expect(standIn.jwksRequests).toBe(1);
  });

  it("names refunds and one-time product notifications as Google does; a one-time product's refund is not read from Google", async () => {
    const decodeNotification = (notification: unknown) =>
      decodeGooglePlayNotification(push(notification), bearer(), settings, endpoints);
    const voidedOneTime = (refundType?: number) =>
      developerNotification({
        voidedPurchaseNotification: {
          purchaseToken: 'rtdn-voided-onetime-2',
          orderId: 'GPA.3345-1111-2222-00009',
          productType: 2,
          ...(refundType === undefined ? {} : { refundType }),
        },
      });
    const tokensBefore = standIn.tokenRequests;
    for (const [refundType, subtype] of [
      [1, 'REFUND_TYPE_FULL_REFUND'],
      [2, 'REFUND_TYPE_QUANTITY_BASED_PARTIAL_REFUND'],
      [3, null],
      [undefined, null],
    ] as const) {
      expect(await decodeNotification(voidedOneTime(refundType))).toMatchObject({
        type: 'VOIDED_PURCHASE',
        subtype,
        state: null,
        voided: { product_type: 2, refund_type: refundType ?? null },
      });
    }
    // Nothing was asked of Google's API (a read would have signed in first).
    expect(standIn.tokenRequests).toBe(tokensBefore);
    for (const [notificationType, type] of [
      [1, 'ONE_TIME_PRODUCT_PURCHASED'],
      [2, 'ONE_TIME_PRODUCT_CANCELED'],
      [7, 'ONE_TIME_PRODUCT_7'],
    ] as const) {
      const oneTime = developerNotification({
        oneTimeProductNotification: {
          version: '1.0',
          notificationType,
          purchaseToken: 'rtdn-onetime-0000002',
          sku: 'coins',
        },
      });
      expect(await decodeNotification(oneTime)).toMatchObject({ type, subtype: null, state: null });
    }
  });

  it('a subscription notification about a purchase with no subscription line item: INVALID_NOTIFICATION, saying so', async () => {
    const token = 'rtdn-no-line-item-001';
    standIn.purchases.set(token, { ...subscriptionPurchaseV2('premium_monthly'), lineItems: [] });
    const error = await appErrorOf(decode(push(subscriptionNotification(2, token))));
    expect([error.code, error.message]).toEqual([
      'INVALID_NOTIFICATION',
      'the purchase of this notification is not a subscription (the Google Play purchase has no subscription line item)',
    ]);
  });

  it('an answer that cannot be read for another reason is no refusal of the notification: Pub/Sub delivers it again', async () => {
    const token = 'rtdn-unreadable-time-1';
    standIn.purchases.set(token, { ...subscriptionPurchaseV2('premium_monthly'), startTime: 'not a time' });
    const error = await decode(push(subscriptionNotification(2, token))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RangeError);
  });
});
