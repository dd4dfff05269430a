import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import { getApp } from '../../lib/data/apps.js';
import type { StoreNotification } from '../../lib/domain/store-purchase.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import {
  decodeTestStoreNotification,
  TEST_NOTIFICATION_TYPES,
  type TestNotificationType,
} from '../../lib/stores/test-store-notifications.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { admin, type RunResult } from '../support/processes.js';

const { request } = useGateway();

interface Minted {
  path: string;
  body: { signedPayload: string };
}

const json = (result: RunResult) => JSON.parse(result.stdout);
const publicKeyOf = async (appId: string) => (await getApp(appId))!.test_store_public_key!;

/** What Apple sends for each --type, and whether it brings a new transaction. */
const APPLE: Record<TestNotificationType, [type: string, subtype: string | null, newTransaction: boolean]> = {
  renewed: ['DID_RENEW', null, true],
  auto_renew_off: ['DID_CHANGE_RENEWAL_STATUS', 'AUTO_RENEW_DISABLED', false],
  auto_renew_on: ['DID_CHANGE_RENEWAL_STATUS', 'AUTO_RENEW_ENABLED', false],
  billing_issue: ['DID_FAIL_TO_RENEW', 'GRACE_PERIOD', false],
  grace_period_expired: ['GRACE_PERIOD_EXPIRED', null, false],
  billing_recovered: ['DID_RENEW', 'BILLING_RECOVERY', true],
  expired: ['EXPIRED', 'VOLUNTARY', false],
  refunded: ['REFUND', null, false],
  refund_reversed: ['REFUND_REVERSED', null, false],
  product_changed: ['DID_CHANGE_RENEWAL_PREF', 'UPGRADE', true],
};

/**
 * `admin notifications mint` as an operator runs it (a process), about purchases verified through
 * the gateway as an app server would; the body it prints decoded as the notification route does.
 */
describe('admin notifications mint, each --type, about a purchase verified through the gateway', () => {
  let app: TestApp;
  let other: TestApp;
  /** A purchase and its renewal, both verified: the renewal is its latest transaction. */
  const purchase = { original: '', latest: '', subscriptionId: '', expiresAt: '' };

  async function receipt(...args: string[]): Promise<{ receipt_data: string; transaction_id: string }> {
    const result = await admin('receipts', 'mint', '--app', app.appId, '--platform', 'ios', ...args, '--json');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return json(result);
  }
  async function verify(receipt_data: string, user_id: string) {
    const res = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data, user_id },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { subscription_id: string; expires_at: string };
  }
  const mintNotification = (...args: string[]) => admin('notifications', 'mint', ...args, '--json');
  async function minted(...args: string[]): Promise<Minted> {
    const result = await mintNotification(...args);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return json(result);
  }

  beforeAll(async () => {
    [app, other] = await Promise.all([createTestApp(), createTestApp()]);
    const first = await receipt('--product', 'premium_monthly', '--expires-in', '3600');
    await verify(first.receipt_data, 'notify-buyer');
    const renewal = await receipt('--product', 'premium_monthly', '--renews', first.transaction_id);
    const renewed = await verify(renewal.receipt_data, 'notify-buyer');
    Object.assign(purchase, {
      original: first.transaction_id,
      latest: renewal.transaction_id,
      subscriptionId: renewed.subscription_id,
      expiresAt: renewed.expires_at,
    });
  });

  it.each(TEST_NOTIFICATION_TYPES)(
    '--type %s: the path of the app, a body its key verifies and no other app accepts',
    async (type) => {
      const [appleType, subtype, newTransaction] = APPLE[type];
      const upgrade = type === 'product_changed' ? ['--product', 'pro_yearly'] : [];
      const output = await minted('--app', app.appId, '--transaction', purchase.latest, '--type', type, ...upgrade);
      expect(Object.keys(output).sort()).toEqual(['body', 'path']);
      expect(output.path).toBe(`/notifications/test-store/${app.appId}`);
      expect(Object.keys(output.body)).toEqual(['signedPayload']);

      const decoded = decodeTestStoreNotification(output.body, app.appId, await publicKeyOf(app.appId));
      expect(decoded).toMatchObject({
        store: 'test_store',
        type: appleType,
        subtype,
        environment: 'Test',
      } satisfies Partial<StoreNotification>);
      expect(decoded.state).toMatchObject({
        store: 'test_store',
        platform: 'ios',
        original_transaction_id: purchase.original,
        product_id: type === 'product_changed' ? 'pro_yearly' : 'premium_monthly',
        price: type === 'product_changed' ? 59.99 : 9.99,
        currency: type === 'product_changed' ? 'EUR' : 'USD',
        revoked: type === 'refunded',
      });
      if (newTransaction)
        expect(decoded.state?.transaction_id).not.toMatch(new RegExp(`^(${purchase.latest}|${purchase.original})$`));
      else expect(decoded.state?.transaction_id).toBe(purchase.latest);
      if (type === 'auto_renew_off' || type === 'auto_renew_on' || type === 'refunded')
        expect(decoded.state?.expires_at).toBe(purchase.expiresAt);
      // The renewal failed when the period ended: the period ends now, the grace period runs on.
      if (type === 'billing_issue') expect(Date.parse(decoded.state!.expires_at)).toBeLessThanOrEqual(Date.now());

      for (const [appId, key] of [
        [other.appId, await publicKeyOf(other.appId)],
        [app.appId, await publicKeyOf(other.appId)],
      ] as const) {
        let refused: unknown;
        try {
          decodeTestStoreNotification(output.body, appId, key);
        } catch (error) {
          refused = error;
        }
        expect(refused).toBeInstanceOf(AppError);
        expect((refused as AppError).kind).toBe('INVALID_NOTIFICATION');
      }
    },
  );

  it('--expires-in sets the renewal period and the grace period', async () => {
    const before = Date.now();
    const renewed = await minted(
      '--app',
      app.appId,
      '--transaction',
      purchase.latest,
      '--type',
      'renewed',
      '--expires-in',
      '7200',
    );
    const key = await publicKeyOf(app.appId);
    const state = decodeTestStoreNotification(renewed.body, app.appId, key).state!;
    // Paid now, for a period that follows the current one.
    expect(Date.parse(state.expires_at) - Date.parse(purchase.expiresAt)).toBe(7_200_000);
    expect(Date.parse(state.purchase_date)).toBeGreaterThanOrEqual(before - 1000);
    const grace = await minted('--app', app.appId, '--transaction', purchase.latest, '--type', 'billing_issue');
    const renewal = decodeTestStoreNotification(grace.body, app.appId, key).state!.renewal!;
    expect(renewal.billing_issue).toBe(true);
    expect(Date.parse(renewal.grace_period_expires_at!) - Date.now()).toBeGreaterThan(16 * 86_400_000 - 60_000);
    expect(Date.parse(renewal.grace_period_expires_at!) - Date.now()).toBeLessThanOrEqual(16 * 86_400_000);
  });

  it('--transaction may be any transaction of the purchase or its original id, verified or not', async () => {
    const key = await publicKeyOf(app.appId);
    const latestOf = async (transaction: string) =>
      decodeTestStoreNotification(
        (await minted('--app', app.appId, '--transaction', transaction, '--type', 'auto_renew_off')).body,
        app.appId,
        key,
      ).state;
    expect(await latestOf(purchase.original)).toMatchObject({ transaction_id: purchase.latest });
    // A purchase whose first transaction was never verified (its renewal was): found by its owner.
    const first = await receipt('--product', 'premium_monthly');
    const renewal = await receipt('--product', 'premium_monthly', '--renews', first.transaction_id);
    await verify(renewal.receipt_data, 'notify-renewal-only');
    expect(await latestOf(first.transaction_id)).toMatchObject({
      transaction_id: renewal.transaction_id,
      original_transaction_id: first.transaction_id,
      renewal: { auto_renew: false },
    });
  });

  it('without --json: a line saying what it is, then the same path and body', async () => {
    const result = await admin(
      'notifications',
      'mint',
      '--app',
      app.appId,
      '--transaction',
      purchase.latest,
      '--type',
      'refunded',
    );
    expect(result.code, result.stderr).toBe(0);
    const [line, document, ...rest] = result.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(line).toBe(
      `Test-store notification refunded (REFUND) about transaction ${purchase.latest} of subscription ${purchase.subscriptionId}; POST the body as JSON to the path:`,
    );
    const output = JSON.parse(document!) as Minted;
    expect(output.path).toBe(`/notifications/test-store/${app.appId}`);
    expect(decodeTestStoreNotification(output.body, app.appId, await publicKeyOf(app.appId)).state?.revoked).toBe(true);
  });

  // Eleven CLI processes, one after another: over 2 s each on a loaded two-core machine.
  it('errors: exit 2 for a wrong command line, 1 for what does not exist', async () => {
    const noTestStore = json(await admin('apps', 'create', '--name', 'no test store', '--json')).app_id as string;
    const base = ['--transaction', purchase.latest, '--type', 'renewed'];
    const cases: [string[], number, string, string][] = [
      [['--app', app.appId, '--transaction', purchase.latest, '--type', 'paused'], 2, 'USAGE', '--type must be one of'],
      [['--app', app.appId, '--transaction', purchase.latest], 2, 'USAGE', '--type is required'],
      [['--app', app.appId, '--type', 'renewed'], 2, 'USAGE', '--transaction is required'],
      [
        ['--app', app.appId, '--transaction', purchase.latest, '--type', 'product_changed'],
        2,
        'USAGE',
        '--product is required with --type product_changed',
      ],
      [[...base, '--app', app.appId, '--expires-in', 'soon'], 2, 'USAGE', '--expires-in must be a whole number'],
      [['--app', 'app_0000000000000000', ...base], 1, 'NOT_FOUND', 'app app_0000000000000000 does not exist'],
      [['--app', noTestStore, ...base], 1, 'NOT_TEST_STORE', `app ${noTestStore} has no test store`],
      [
        ['--app', app.appId, '--transaction', 'test_nosuchtransaction', '--type', 'renewed'],
        1,
        'NOT_FOUND',
        `transaction test_nosuchtransaction is no purchase of ${app.appId}`,
      ],
      // Another app's purchase is not this app's.
      [
        ['--app', other.appId, ...base],
        1,
        'NOT_FOUND',
        `transaction ${purchase.latest} is no purchase of ${other.appId}`,
      ],
      [
        [...base.slice(0, 3), 'product_changed', '--product', 'nope', '--app', app.appId],
        1,
        'NOT_FOUND',
        `product nope is not in the catalogue of ${app.appId}`,
      ],
    ];
    for (const [args, code, errorCode, message] of cases) {
      const result = await mintNotification(...args);
      expect(result.code, `${args.join(' ')}: ${result.stdout}`).toBe(code);
      expect(json(result).error.code).toBe(errorCode);
      expect(json(result).error.message).toContain(message);
    }
  }, 120_000);

  it('a subscription without a test-store receipt is refused: NOT_TEST_STORE', async () => {
    const created = await request('POST', SUBSCRIPTIONS_BASE, {
      bearer: app.secretKey,
      body: { user_id: 'notify-web', product_id: 'premium_monthly', platform: 'ios', transaction_id: 'apple_1000' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const result = await mintNotification('--app', app.appId, '--transaction', 'apple_1000', '--type', 'renewed');
    expect(result.code).toBe(1);
    expect(json(result).error).toMatchObject({
      code: 'NOT_TEST_STORE',
      message: expect.stringContaining('transaction apple_1000 is not a test-store purchase'),
    });
  });
});

/**
 * What a minted notification does once POSTed to the running API, as a developer testing with the
 * test store sees it: the subscription's detail and the app's revenue afterwards.
 */
describe('admin notifications mint, the body POSTed to the API', () => {
  let app: TestApp;
  let users = 0;
  const DAY_MS = 86_400_000;
  const REVENUE_DAYS = {
    start_date: new Date().toISOString().slice(0, 10),
    end_date: new Date(Date.now() + DAY_MS).toISOString().slice(0, 10),
  };

  beforeAll(async () => {
    app = await createTestApp();
  });

  /** A purchase of a 30-day period, verified through the gateway: its subscription and transaction. */
  async function purchase(): Promise<{ subscriptionId: string; transactionId: string; expiresAt: string }> {
    const result = await admin(
      'receipts',
      'mint',
      '--app',
      app.appId,
      '--platform',
      'ios',
      '--product',
      'premium_monthly',
      '--expires-in',
      String(30 * 86_400),
      '--json',
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const minted = json(result) as { receipt_data: string; transaction_id: string };
    const verified = await request('POST', `${SUBSCRIPTIONS_BASE}/verify`, {
      bearer: app.secretKey,
      body: { platform: 'ios', receipt_data: minted.receipt_data, user_id: `mint-user-${(users += 1)}` },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    return {
      subscriptionId: verified.body.data.subscription_id,
      transactionId: minted.transaction_id,
      expiresAt: verified.body.data.expires_at,
    };
  }
  /** `notifications mint` as a process, its body POSTed to the path it names. */
  async function mintAndPost(transactionId: string, type: TestNotificationType, ...args: string[]) {
    const result = await admin(
      'notifications',
      'mint',
      '--app',
      app.appId,
      '--transaction',
      transactionId,
      '--type',
      type,
      ...args,
      '--json',
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const output = json(result) as Minted;
    const posted = await request('POST', output.path, { body: output.body });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    expect(posted.body.data.outcome).toBe('applied');
  }
  const detail = async (id: string) =>
    (await request('GET', `${SUBSCRIPTIONS_BASE}/${id}`, { bearer: app.secretKey })).body.data;
  const revenue = async () => {
    const { body } = await request('GET', `${SUBSCRIPTIONS_BASE}/revenue`, {
      bearer: app.secretKey,
      query: REVENUE_DAYS,
    });
    const breakdown = body.data.breakdown as { renewals: number }[];
    return { amount: body.data.total_revenue as number, renewals: breakdown.reduce((sum, b) => sum + b.renewals, 0) };
  };

  it('renewed with a period shorter than what is left of the current one: a renewal after it, with its revenue', async () => {
    const p = await purchase();
    const before = await revenue();
    await mintAndPost(p.transactionId, 'renewed', '--expires-in', '3600');
    expect(await detail(p.subscriptionId)).toMatchObject({
      status: 'active',
      expires_at: new Date(Date.parse(p.expiresAt) + 3_600_000).toISOString(),
    });
    const after = await revenue();
    expect({
      renewals: after.renewals - before.renewals,
      amount: Math.round((after.amount - before.amount) * 100) / 100,
    }).toEqual({ renewals: 1, amount: 9.99 });
  });

  it('refunded, then refund_reversed: active again to the refunded transaction’s own end', async () => {
    const p = await purchase();
    await mintAndPost(p.transactionId, 'refunded');
    expect(await detail(p.subscriptionId)).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'refunded_by_store',
    });
    const before = await revenue();
    await mintAndPost(p.transactionId, 'refund_reversed');
    expect(await detail(p.subscriptionId)).toMatchObject({
      status: 'active',
      expires_at: p.expiresAt,
      refunded_at: null,
    });
    const after = await revenue();
    expect(Math.round((after.amount - before.amount) * 100) / 100).toBe(9.99);
  });
});
