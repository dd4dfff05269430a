import { beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { admin } from '../support/processes.js';

const { request } = useGateway();

interface Minted {
  receipt_data: string;
  transaction_id: string;
}

/** The claims of a test-store receipt (base64 of a JWS). */
const claimsOf = (receipt: string): Record<string, any> =>
  JSON.parse(Buffer.from(Buffer.from(receipt, 'base64').toString('utf8').split('.')[1]!, 'base64url').toString('utf8'));

/**
 * Every kind of purchase `admin receipts mint` makes, minted by the CLI as an operator runs it (a
 * process) and verified through the gateway as an app server would.
 */
describe('admin receipts mint, each kind verified through POST /v1/subscriptions/verify', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  async function mint(...args: string[]): Promise<Minted> {
    const result = await admin(
      'receipts',
      'mint',
      '--app',
      app.appId,
      '--product',
      'premium_monthly',
      ...args,
      '--json',
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Minted;
  }
  const verify = (receipt_data: string, user_id: string, platform = 'ios') =>
    request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform, receipt_data, user_id },
    });
  const detail = async (id: string) =>
    (await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: app.secretKey })).body.data;
  const iso = (ms: number) => new Date(ms).toISOString();

  it.each(['ios', 'android'])(
    'a purchase on %s is an active subscription ending when the receipt says',
    async (platform) => {
      const minted = await mint('--platform', platform);
      const claims = claimsOf(minted.receipt_data);
      const res = await verify(minted.receipt_data, `cli-${platform}`, platform);
      expect(res.status).toBe(200);
      expect(await detail(res.body.data.subscription_id)).toMatchObject({
        platform,
        status: 'active',
        trial_period: false,
        expires_at: iso(claims.expiresDate),
      });
    },
  );

  it('--trial is a trial subscription for the product trial period (7 days)', async () => {
    const minted = await mint('--platform', 'ios', '--trial');
    const claims = claimsOf(minted.receipt_data);
    expect(claims.expiresDate - claims.purchaseDate).toBe(7 * 86_400_000);
    const res = await verify(minted.receipt_data, 'cli-trial');
    expect(await detail(res.body.data.subscription_id)).toMatchObject({
      status: 'active',
      trial_period: true,
      expires_at: iso(claims.expiresDate),
    });
  });

  it('--renews renews the subscription of the earlier transaction', async () => {
    const first = await mint('--platform', 'ios', '--expires-in', '3600');
    const bought = await verify(first.receipt_data, 'cli-renewer');
    const renewal = await mint('--platform', 'ios', '--renews', first.transaction_id, '--expires-in', '7200');
    const renewed = await verify(renewal.receipt_data, 'cli-renewer');
    expect(renewed.status).toBe(200);
    expect(renewed.body.data.subscription_id).toBe(bought.body.data.subscription_id);
    expect(await detail(bought.body.data.subscription_id)).toMatchObject({
      status: 'active',
      expires_at: iso(claimsOf(renewal.receipt_data).expiresDate),
    });
  });

  it('--revokes is the store refunding the transaction: INVALID_RECEIPT, and its subscription is cancelled', async () => {
    const bought = await mint('--platform', 'ios');
    const subscriptionId = (await verify(bought.receipt_data, 'cli-refunded')).body.data.subscription_id;
    const revocation = await mint('--platform', 'ios', '--revokes', bought.transaction_id);
    const res = await verify(revocation.receipt_data, 'cli-refunded');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_RECEIPT', message: expect.stringContaining('revoked') });
    expect(await detail(subscriptionId)).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'refunded_by_store',
    });
  });

  it.each([
    ['--expires-in -60', ['--expires-in', '-60']],
    ['--expires-in=-60', ['--expires-in=-60']],
  ])('%s mints a purchase that expired a minute ago: valid, and its subscription expired', async (_name, spelling) => {
    const minted = await mint('--platform', 'ios', ...spelling);
    const claims = claimsOf(minted.receipt_data);
    expect(claims.expiresDate - claims.purchaseDate).toBe(-60_000);
    const res = await verify(minted.receipt_data, `cli-expired-${spelling.length}`);
    expect(res.status).toBe(200);
    expect(res.body.data.verification_status).toBe('valid');
    expect(await detail(res.body.data.subscription_id)).toMatchObject({
      status: 'expired',
      expires_at: iso(claims.expiresDate),
    });
  });
});
