import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { googlePlayVerifier } from '../../lib/stores/google-play.js';
import { appErrorOf } from '../support/assertions.js';
import {
  type StandIn,
  startGooglePlayStandIn,
  subscriptionPurchase,
  subscriptionPurchaseV2,
} from '../support/google-play-standin.js';
import { freePort } from '../support/ports.js';

const PACKAGE = 'com.example.subs';

/** A stand-in of its own and its verifier: its service account has no access token cached yet. */
async function withOwnStandIn(run: (own: StandIn, verifier: ReturnType<typeof googlePlayVerifier>) => Promise<void>) {
  const own = await startGooglePlayStandIn(PACKAGE);
  try {
    await run(
      own,
      googlePlayVerifier(
        { package_name: PACKAGE, service_account: own.serviceAccount },
        { tokenUrl: own.tokenUrl, apiBaseUrl: own.url },
      ),
    );
  } finally {
    await own.close();
  }
}

describe('Google Play verification over HTTP (local stand-in of the token endpoint and the Play API)', () => {
  let standIn: StandIn;
  const verifier = {
    verify: (receiptData: string) =>
      googlePlayVerifier(
        { package_name: PACKAGE, service_account: standIn.serviceAccount },
        { tokenUrl: standIn.tokenUrl, apiBaseUrl: standIn.url },
      ).verify(receiptData),
  };
  beforeAll(async () => {
    standIn = await startGooglePlayStandIn(PACKAGE);
  });
  afterAll(() => standIn.close());

  it('signs in with the service account, reads subscriptionsv2, maps it, and acknowledges the purchase', async () => {
    const purchase = subscriptionPurchase('premium_monthly', 30 * 86_400_000);
    standIn.purchases.set('token-active-0000001', purchase);
    const result = await verifier.verify('token-active-0000001');
    expect(result).toEqual({
      store: 'google_play',
      platform: 'android',
      environment: 'Production',
      transaction_id: purchase.latestOrderId,
      original_transaction_id: 'token-active-0000001',
      product_id: 'premium_monthly',
      purchase_date: purchase.startTime,
      expires_at: (purchase.lineItems as { expiryTime: string }[])[0]!.expiryTime,
      trial: false,
      price: null,
      currency: null,
      revoked: false,
      app_account_token: null,
    });
    expect(standIn.acknowledged).toContain('token-active-0000001');
  });

  it('signs in afresh as Google requires (RS256, the Play scope, an hour at most), and reads a token and a pending state', () =>
    withOwnStandIn(async (own, ownVerifier) => {
      own.purchases.set('token-fresh-00000001', subscriptionPurchase('premium_monthly', 86_400_000));
      expect((await ownVerifier.verify('token-fresh-00000001')).original_transaction_id).toBe('token-fresh-00000001');
      expect(own.tokenRequests).toBe(1);
      own.purchases.set(
        'token-fresh-pending1',
        subscriptionPurchase('premium_monthly', 86_400_000, { subscriptionState: 'SUBSCRIPTION_STATE_PENDING' }),
      );
      expect(await appErrorOf(ownVerifier.verify('token-fresh-pending1'))).toMatchObject({
        kind: 'INVALID_RECEIPT',
        message: 'the Google Play purchase is not paid (pending)',
      });
    }));

  it("reads the account the app named at purchase (externalAccountIdentifiers.obfuscatedExternalAccountId) as the transaction's account token", async () => {
    const token = 'b1011b47-a5c7-5dd0-a3ea-fde09a0c181a';
    standIn.purchases.set(
      'token-account-000001',
      subscriptionPurchase('premium_monthly', 86_400_000, {
        externalAccountIdentifiers: { obfuscatedExternalAccountId: token },
      }),
    );
    expect((await verifier.verify('token-account-000001')).app_account_token).toBe(token);
    // The profile id is not the account.
    standIn.purchases.set(
      'token-profile-000001',
      subscriptionPurchase('premium_monthly', 86_400_000, {
        externalAccountIdentifiers: { obfuscatedExternalProfileId: token },
      }),
    );
    expect((await verifier.verify('token-profile-000001')).app_account_token).toBeNull();
  });

  it('reuses the access token until it expires', () =>
    withOwnStandIn(async (own, ownVerifier) => {
      own.purchases.set(
        'token-reuse-00000001',
        subscriptionPurchase('premium_monthly', 86_400_000, {
          acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
        }),
      );
      await ownVerifier.verify('token-reuse-00000001');
      await ownVerifier.verify('token-reuse-00000001');
      // One sign-in, for both reads.
      expect(own.tokenRequests).toBe(1);
    }));

  it("keeps the access token until a minute before Google's expires_in (3599 s), to the millisecond", () =>
    withOwnStandIn(async (own, ownVerifier) => {
      own.purchases.set(
        'token-expiry-0000001',
        subscriptionPurchase('premium_monthly', 86_400_000, {
          acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
        }),
      );
      const signedInAt = Date.parse('2026-06-01T12:00:00.000Z');
      // Date alone is faked: the stand-in, in this process, judges the sign-in's iat and exp by it too.
      vi.useFakeTimers({ toFake: ['Date'], now: signedInAt });
      try {
        const signInsAt = async (at: number) => {
          vi.setSystemTime(at);
          const before = own.tokenRequests;
          await ownVerifier.verify('token-expiry-0000001');
          return own.tokenRequests - before;
        };
        expect(await signInsAt(signedInAt)).toBe(1);
        expect(await signInsAt(signedInAt + 3539_000 - 1)).toBe(0);
        expect(await signInsAt(signedInAt + 3539_000)).toBe(1);
      } finally {
        vi.useRealTimers();
      }
    }));

  it('accepts a base64 purchase object, and refuses one of another package', async () => {
    standIn.purchases.set(
      'token-object-0000001',
      subscriptionPurchase('premium_monthly', 86_400_000, { offerPhase: undefined }),
    );
    const object = (packageName: string) =>
      Buffer.from(
        JSON.stringify({ packageName, productId: 'premium_monthly', purchaseToken: 'token-object-0000001' }),
      ).toString('base64');
    expect((await verifier.verify(object(PACKAGE))).original_transaction_id).toBe('token-object-0000001');
    expect(await appErrorOf(verifier.verify(object('com.evil.app')))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'the purchase belongs to another app (package com.evil.app)',
    });
  });

  it('marks free trials and test purchases', async () => {
    const trial = subscriptionPurchase('premium_monthly', 86_400_000, { testPurchase: {} });
    (trial.lineItems as Record<string, unknown>[])[0]!.offerPhase = { freeTrial: {} };
    standIn.purchases.set('token-trial-00000001', trial);
    expect(await verifier.verify('token-trial-00000001')).toMatchObject({ trial: true, environment: 'Sandbox' });
  });

  it("takes the price and currency from the line item's recurring price, and the order id from its latest successful order", async () => {
    const purchase = subscriptionPurchaseV2('premium_monthly', {
      price: { currencyCode: 'JPY', units: '1200', nanos: 0 },
      orderId: 'GPA.3345-7777-8888-00002',
    });
    purchase.latestOrderId = 'GPA.3345-7777-8888-00003';
    standIn.purchases.set('token-priced-0000001', purchase);
    expect(await verifier.verify('token-priced-0000001')).toMatchObject({
      transaction_id: 'GPA.3345-7777-8888-00002',
      price: 1200,
      currency: 'JPY',
    });
    standIn.purchases.set(
      'token-priced-0000002',
      subscriptionPurchaseV2('premium_monthly', { price: { currencyCode: 'EUR', units: '4', nanos: 490_000_000 } }),
    );
    expect(await verifier.verify('token-priced-0000002')).toMatchObject({ price: 4.49, currency: 'EUR' });
  });

  it('an unknown token is INVALID_RECEIPT; a pending payment too, and a pending purchase canceled', async () => {
    expect(await appErrorOf(verifier.verify('token-unknown-000001'))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'Google Play does not know this purchase token (404)',
    });
    standIn.purchases.set(
      'token-pending-000001',
      subscriptionPurchase('premium_monthly', 86_400_000, { subscriptionState: 'SUBSCRIPTION_STATE_PENDING' }),
    );
    expect((await appErrorOf(verifier.verify('token-pending-000001'))).message).toBe(
      'the Google Play purchase is not paid (pending)',
    );
    standIn.purchases.set(
      'token-pending-000002',
      subscriptionPurchase('premium_monthly', 86_400_000, {
        subscriptionState: 'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED',
      }),
    );
    expect(await appErrorOf(verifier.verify('token-pending-000002'))).toMatchObject({
      code: 'INVALID_RECEIPT',
      message: 'the Google Play purchase is not paid (pending, then canceled)',
    });
  });

  it('Google failing (5xx), refusing the credentials, or timing out is VERIFICATION_FAILED, retryable', async () => {
    standIn.purchases.set('token-flaky-00000001', subscriptionPurchase('premium_monthly', 86_400_000));
    standIn.failNext('token-flaky-00000001', 503);
    expect(await appErrorOf(verifier.verify('token-flaky-00000001'))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'Google Play answered 503; retry',
      retryable: true,
    });
    for (const status of [401, 403]) {
      standIn.failNext('token-flaky-00000001', status);
      expect(await appErrorOf(verifier.verify('token-flaky-00000001'))).toMatchObject({
        code: 'VERIFICATION_FAILED',
        message: `Google Play refused the service account (${status}); check its Play Console permissions`,
        retryable: true,
      });
      // The access token it refused is dropped: the next read signs in again.
      const signIns = standIn.tokenRequests;
      expect((await verifier.verify('token-flaky-00000001')).product_id).toBe('premium_monthly');
      expect(standIn.tokenRequests).toBe(signIns + 1);
    }
    standIn.failNext('token-flaky-00000001', 'hang');
    expect(await appErrorOf(verifier.verify('token-flaky-00000001'))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'Google Play did not answer (timeout); retry',
      retryable: true,
    });
    // Then it works again.
    expect((await verifier.verify('token-flaky-00000001')).product_id).toBe('premium_monthly');
  }, 20_000);

  it('Google answering 400 or 410 for a token is INVALID_RECEIPT naming the status, as 404 is', async () => {
    standIn.purchases.set('token-gone-000000001', subscriptionPurchase('premium_monthly', 86_400_000));
    for (const status of [400, 410]) {
      standIn.failNext('token-gone-000000001', status);
      expect(await appErrorOf(verifier.verify('token-gone-000000001'))).toMatchObject({
        code: 'INVALID_RECEIPT',
        message: `Google Play does not know this purchase token (${status})`,
      });
    }
  });

  it('the Play API unreachable is VERIFICATION_FAILED naming the cause', async () => {
    const unreachable = googlePlayVerifier(
      { package_name: PACKAGE, service_account: standIn.serviceAccount },
      { tokenUrl: standIn.tokenUrl, apiBaseUrl: `http://127.0.0.1:${await freePort()}` },
    );
    expect(await appErrorOf(unreachable.verify('token-active-0000001'))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: expect.stringMatching(/^Google Play did not answer \(.*ECONNREFUSED.*\); retry$/),
      retryable: true,
    });
  });

  it('a purchase already acknowledged is not acknowledged again', async () => {
    standIn.purchases.set(
      'token-acked-00000001',
      subscriptionPurchase('premium_monthly', 86_400_000, {
        acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
      }),
    );
    expect((await verifier.verify('token-acked-00000001')).product_id).toBe('premium_monthly');
    expect(standIn.acknowledged).not.toContain('token-acked-00000001');
  });

  it('a service account Google does not accept is VERIFICATION_FAILED', async () => {
    const other = await startGooglePlayStandIn(PACKAGE);
    const wrongKey = googlePlayVerifier(
      {
        package_name: PACKAGE,
        service_account: { ...other.serviceAccount, client_email: 'wrong@example.iam.gserviceaccount.com' },
      },
      { tokenUrl: standIn.tokenUrl, apiBaseUrl: standIn.url },
    );
    expect(await appErrorOf(wrongKey.verify('token-active-0000001'))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'Google refused the service account sign-in (400 invalid_grant); check stores google set',
      retryable: true,
    });
    await other.close();
  });

  it('an acknowledgement Google refuses fails the verification (retryable), so it is retried', async () => {
    standIn.purchases.set('token-noack-00000001', subscriptionPurchase('premium_monthly', 86_400_000));
    standIn.failNext(':acknowledge', 500);
    expect(await appErrorOf(verifier.verify('token-noack-00000001'))).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'Google Play did not accept the acknowledgement (500); retry',
      retryable: true,
    });
    await verifier.verify('token-noack-00000001');
    expect(standIn.acknowledged).toContain('token-noack-00000001');
  });
  it('a service account key that cannot sign is VERIFICATION_FAILED saying so, with the cause', async () => {
    const unusable = googlePlayVerifier(
      {
        package_name: PACKAGE,
        // An account of its own: none signed in before it, so its key is used.
        service_account: {
          ...standIn.serviceAccount,
          client_email: 'unusable@example.iam.gserviceaccount.com',
          private_key: 'not a PEM key',
        },
      },
      { tokenUrl: standIn.tokenUrl, apiBaseUrl: standIn.url },
    );
    const error = await appErrorOf(unusable.verify('token-active-0000001'));
    expect(error).toMatchObject({
      code: 'VERIFICATION_FAILED',
      message: 'the Google service account private key cannot sign (stores google set)',
    });
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a sign-in refused without an OAuth error names the status alone; an answer that is no JSON is unreadable', () =>
    withOwnStandIn(async (own, ownVerifier) => {
      own.purchases.set('token-text-000000001', subscriptionPurchase('premium_monthly', 86_400_000));
      own.answerNext('/token', 503, 'Service Unavailable');
      expect(await appErrorOf(ownVerifier.verify('token-text-000000001'))).toMatchObject({
        code: 'VERIFICATION_FAILED',
        message: 'Google refused the service account sign-in (503); check stores google set',
        retryable: true,
      });
      own.answerNext('token-text-000000001', 200, '<html>not JSON</html>');
      const unreadable = await appErrorOf(ownVerifier.verify('token-text-000000001'));
      expect(unreadable).toMatchObject({
        code: 'VERIFICATION_FAILED',
        message: 'Google Play sent an unreadable answer; retry',
        retryable: true,
      });
      expect(unreadable.cause).toBeInstanceOf(SyntaxError);
    }));
});
