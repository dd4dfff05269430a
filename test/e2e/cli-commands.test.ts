/**
 * Every command the operator CLI's help text lists, run as a process the way docs/operations.md shows it
 * (`npm run --silent admin -- ... --json`), against DynamoDB Local, with its documented output.
 * The table must name exactly the commands of the help text, so every documented command is
 * reachable, three-word ones such as `stores apple set` included.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  process.env.TABLE_NAME = `cli-commands-e2e-${process.pid}`;
  // `paywalls upload` writes its bundles here (the CLI's processes inherit it), not into the project's .data.
  const { mkdtempSync } = require('node:fs') as typeof import('node:fs');
  const { join: joinPath } = require('node:path') as typeof import('node:path');
  const { tmpdir: tmp } = require('node:os') as typeof import('node:os');
  process.env.PAYWALLS_DIR = mkdtempSync(joinPath(tmp(), 'cli-paywalls-'));
});

import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { getPurchaseOwner } from '../../lib/data/purchase-ownership.js';
import { getAppWithStoreSettings } from '../../lib/data/store-settings.js';
import type { SubscriptionRecord } from '../../lib/data/subscription-items.js';
import { countMatching, getSubscription, listSubscriptions } from '../../lib/data/subscription-queries.js';
import { listCountCell } from '../../lib/data/table-keys.js';
import { countEndpointTimeout, setEndpointPause } from '../../lib/data/webhooks.js';
import { EVENT_KINDS } from '../../lib/events/schemas.js';
import { CUSTOMERS_BASE, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.js';
import { contractFetch } from '../support/contract.js';
import { settleCounters } from '../support/counters.js';
import { seedLegacyShapes } from '../support/legacy-items.js';
import { createOwnTable } from '../support/own-table.js';
import { admin, type RunResult } from '../support/processes.js';
import { startWebhookReceiver, type WebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

/** What the commands before it printed, for the commands that name earlier results. */
interface Context {
  dir: string;
  runtime: LocalRuntime;
  receiver: WebhookReceiver;
  app?: { app_id: string; secret_key: string; sdk_key: string };
  keyId?: string;
  eventId?: string;
  [name: string]: unknown;
}

interface Case {
  /** The command, as the help text names it. */
  command: string;
  args: (ctx: Context) => Promise<string[]> | string[];
  /** The documented fields of its JSON output (docs/operations.md, Operator CLI). */
  prints: string[];
  then?: (output: any, ctx: Context) => Promise<void> | void;
}

const file = async (ctx: Context, name: string, content: unknown) => {
  const path = join(ctx.dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const appOf = (ctx: Context) => ctx.app!.app_id;
/** The app's customers whose id starts with `prefix`, as GET /v1/customers finds them. */
async function customersNamed(ctx: Context, prefix: string): Promise<string[]> {
  const res = await contractFetch(`${ctx.runtime.gateway.url}${CUSTOMERS_BASE}?prefix=${encodeURIComponent(prefix)}`, {
    headers: { authorization: `Bearer ${ctx.app!.secret_key}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { user_id: string }[] }).data.map((customer) => customer.user_id);
}

const PRODUCT = {
  id: 'premium_monthly',
  name: 'Premium',
  description: 'All features',
  price: 9.99,
  currency: 'USD',
  billing_period: 'monthly',
  trial_period_days: 7,
  features: ['sync'],
  platforms: ['ios', 'android'],
};

/** In the order an operator would run them; later commands use what earlier ones printed. */
const CASES: Case[] = [
  {
    command: 'apps create',
    args: () => ['apps', 'create', '--name', 'every command', '--test-store'],
    prints: ['app_id', 'secret_key', 'sdk_key'],
    then: (output, ctx) => {
      expect(output).toEqual({
        app_id: expect.stringMatching(/^app_[0-9a-f]{16}$/),
        secret_key: expect.stringMatching(/^sk_/),
        sdk_key: expect.stringMatching(/^pk_/),
      });
      ctx.app = output;
    },
  },
  {
    command: 'apps update',
    args: (ctx) => ['apps', 'update', '--app', appOf(ctx), '--restore-policy', 'transfer'],
    prints: ['app_id', 'restore_policy'],
    then: (output) => expect(output.restore_policy).toBe('transfer'),
  },
  {
    command: 'apps user-token-secret',
    args: (ctx) => ['apps', 'user-token-secret', '--app', appOf(ctx)],
    prints: ['app_id', 'secret', 'require_user_token'],
    then: (output) =>
      expect(output).toMatchObject({ secret: expect.stringMatching(/^ust_/), require_user_token: false }),
  },
  {
    command: 'apps list',
    args: () => ['apps', 'list'],
    prints: ['apps'],
    then: (output, ctx) => {
      const listed = (output.apps as { app_id: string }[]).find((app) => app.app_id === appOf(ctx));
      // Its settings as the commands above left them, and nothing else: no key, no secret.
      expect(listed).toEqual({
        app_id: appOf(ctx),
        name: 'every command',
        reporting_currency: 'USD',
        test_store: true,
        restore_policy: 'transfer',
        require_user_token: false,
        support_email: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        app_store_configured: false,
        google_play_configured: false,
      });
    },
  },
  {
    command: 'keys create',
    args: (ctx) => ['keys', 'create', '--app', appOf(ctx), '--kind', 'sdk', '--tier', 'premium'],
    prints: ['app_id', 'kind', 'key', 'key_id', 'tier'],
    then: (output, ctx) => {
      expect(output).toMatchObject({ kind: 'sdk', tier: 'premium', key: expect.stringMatching(/^pk_/) });
      ctx.keyId = output.key_id;
    },
  },
  {
    command: 'keys rotate',
    args: (ctx) => ['keys', 'rotate', '--app', appOf(ctx), '--kind', 'secret', '--keep-old'],
    prints: ['app_id', 'kind', 'key', 'key_id', 'tier', 'revoked_key_ids'],
    then: (output) => expect(output.revoked_key_ids).toEqual([]),
  },
  {
    command: 'keys revoke',
    args: (ctx) => ['keys', 'revoke', '--app', appOf(ctx), '--key-id', ctx.keyId!],
    prints: ['app_id', 'key_id', 'kind', 'status', 'revoked_at'],
    then: (output, ctx) => expect(output).toMatchObject({ key_id: ctx.keyId, status: 'revoked' }),
  },
  {
    command: 'keys list',
    args: (ctx) => ['keys', 'list', '--app', appOf(ctx)],
    prints: ['app_id', 'keys'],
    then: (output) => expect(output.keys).toHaveLength(4),
  },
  {
    command: 'products put',
    args: async (ctx) => [
      'products',
      'put',
      '--app',
      appOf(ctx),
      '--file',
      await file(ctx, 'products.json', [PRODUCT]),
    ],
    prints: ['app_id', 'products'],
    then: (output) => expect(output.products).toEqual(['premium_monthly']),
  },
  {
    command: 'entitlements put',
    args: async (ctx) => [
      'entitlements',
      'put',
      '--app',
      appOf(ctx),
      '--file',
      await file(ctx, 'entitlements.json', [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]),
    ],
    prints: ['app_id', 'entitlements'],
    then: (output) => expect(output.entitlements).toEqual(['pro']),
  },
  {
    command: 'segments put',
    args: async (ctx) => [
      'segments',
      'put',
      '--app',
      appOf(ctx),
      '--file',
      await file(ctx, 'segments.json', [
        {
          id: 'german_speakers',
          name: 'German speakers',
          conditions: [{ field: 'attributes.language', op: 'eq', value: 'de' }],
        },
      ]),
    ],
    prints: ['app_id', 'segments'],
  },
  {
    command: 'offerings put',
    args: async (ctx) => [
      'offerings',
      'put',
      '--app',
      appOf(ctx),
      '--file',
      await file(ctx, 'offerings.json', {
        current: 'standard',
        offerings: [{ id: 'standard', packages: [{ id: '$rc_monthly', products: { ios: 'premium_monthly' } }] }],
        placements: [
          {
            id: 'onboarding',
            rules: [{ audience: { segment: 'german_speakers' }, offering: 'standard' }],
            default: 'standard',
          },
        ],
      }),
    ],
    prints: ['app_id', 'current', 'offerings', 'placements'],
    then: (output) =>
      expect(output).toMatchObject({ current: 'standard', offerings: ['standard'], placements: ['onboarding'] }),
  },
  {
    command: 'switches put',
    args: async (ctx) => [
      'switches',
      'put',
      '--app',
      appOf(ctx),
      '--file',
      await file(ctx, 'switches.json', [{ key: 'show_banner', type: 'boolean', value: false }]),
    ],
    prints: ['app_id', 'switches'],
    then: (output) => expect(output.switches).toEqual(['show_banner']),
  },
  {
    command: 'paywalls upload',
    args: async (ctx) => {
      const path = join(ctx.dir, 'bundle.zip');
      await writeFile(path, zipSync({ 'index.html': strToU8('<h1>Go premium</h1>') }));
      return ['paywalls', 'upload', '--app', appOf(ctx), '--id', 'main', '--file', path, '--name', 'Main paywall'];
    },
    prints: ['app_id', 'paywall', 'stored_at'],
    then: async (output) => {
      expect(output.paywall).toMatchObject({ id: 'main', name: 'Main paywall', version: 1, files: 1 });
      expect(output.stored_at).toBe(
        join(process.env.PAYWALLS_DIR!, output.app_id, 'main', `${output.paywall.sha256}.zip`),
      );
      expect((await readFile(output.stored_at)).subarray(0, 2).toString()).toBe('PK');
    },
  },
  {
    command: 'ads put',
    args: async (ctx) => [
      'ads',
      'put',
      '--app',
      appOf(ctx),
      '--file',
      await file(ctx, 'ads.json', { ios: { networks: [{ name: 'admob', enabled: true, settings: {} }] } }),
    ],
    prints: ['app_id', 'platforms', 'networks'],
  },
  {
    command: 'fx put',
    args: async (ctx) => [
      'fx',
      'put',
      '--file',
      await file(ctx, 'fx.json', [{ date: '2026-11-24', from: 'EUR', to: 'USD', rate: 1.08 }]),
    ],
    prints: ['rates'],
    then: (output) => expect(output.rates).toBe(1),
  },
  {
    command: 'receipts mint',
    args: (ctx) => ['receipts', 'mint', '--app', appOf(ctx), '--platform', 'ios', '--product', 'premium_monthly'],
    prints: ['receipt_data', 'transaction_id', 'app_account_token'],
    then: async (output, ctx) => {
      // The minted purchase verifies, and its activation is notified (for the webhook commands below).
      const verified = await contractFetch(`${ctx.runtime.gateway.url}${SUBSCRIPTIONS_BASE}/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.app!.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ platform: 'ios', receipt_data: output.receipt_data, user_id: 'cli-buyer' }),
      });
      expect(verified.status).toBe(200);
      ctx.transactionId = output.transaction_id;
    },
  },
  {
    command: 'notifications mint',
    args: (ctx) => [
      'notifications',
      'mint',
      '--app',
      appOf(ctx),
      '--transaction',
      ctx.transactionId as string,
      '--type',
      'auto_renew_off',
    ],
    prints: ['path', 'body'],
    then: (output, ctx) => {
      expect(output.path).toBe(`/notifications/test-store/${appOf(ctx)}`);
      expect(output.body.signedPayload).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    },
  },
  {
    command: 'stores apple set',
    args: async (ctx) => {
      const key = generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      return [
        'stores',
        'apple',
        'set',
        '--app',
        appOf(ctx),
        '--bundle-id',
        'com.example.app',
        '--environment',
        'Sandbox',
        '--issuer-id',
        'issuer',
        '--key-id',
        'KEY123',
        '--key-file',
        await file(ctx, 'key.p8', key),
      ];
    },
    prints: ['app_id', 'store', 'bundle_id', 'environment', 'server_api', 'stored_in'],
    then: (output) => {
      expect(output).toMatchObject({
        store: 'app_store',
        bundle_id: 'com.example.app',
        environment: 'Sandbox',
        server_api: true,
      });
      expect(JSON.stringify(output)).not.toContain('PRIVATE KEY');
    },
  },
  {
    command: 'stores google set',
    args: async (ctx) => {
      const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      const account = {
        type: 'service_account',
        client_email: 'verifier@example.iam.gserviceaccount.com',
        private_key: privateKey,
        token_uri: 'https://oauth2.googleapis.com/token',
      };
      return [
        'stores',
        'google',
        'set',
        '--app',
        appOf(ctx),
        '--package-name',
        'com.example.app',
        '--service-account-file',
        await file(ctx, 'account.json', account),
        '--push-audience',
        'https://api.example.com/notifications/google-play/app',
        '--push-service-account',
        'rtdn-push@example.iam.gserviceaccount.com',
      ];
    },
    prints: ['app_id', 'store', 'package_name', 'client_email', 'push_audience', 'push_service_account', 'stored_in'],
    then: async (output, ctx) => {
      expect(output).toMatchObject({
        store: 'google_play',
        package_name: 'com.example.app',
        client_email: 'verifier@example.iam.gserviceaccount.com',
        push_audience: 'https://api.example.com/notifications/google-play/app',
        push_service_account: 'rtdn-push@example.iam.gserviceaccount.com',
      });
      expect(JSON.stringify(output)).not.toContain('PRIVATE KEY');
      // What the notification function reads, with the app, in one request.
      const { settings } = await getAppWithStoreSettings(appOf(ctx), 'google_play', { withCredentials: true });
      expect(settings).toMatchObject({
        package_name: 'com.example.app',
        push_audience: 'https://api.example.com/notifications/google-play/app',
        push_service_account: 'rtdn-push@example.iam.gserviceaccount.com',
      });
    },
  },
  {
    command: 'stores show',
    args: (ctx) => ['stores', 'show', '--app', appOf(ctx)],
    prints: ['app_id', 'app_store', 'google_play', 'test_store'],
    then: (output, ctx) => {
      expect(output).toEqual({
        app_id: appOf(ctx),
        app_store: {
          bundle_id: 'com.example.app',
          environment: 'Sandbox',
          accepts_environments: ['Sandbox'],
          app_apple_id: null,
          server_api: { issuer_id: 'issuer', key_id: 'KEY123' },
          stored_in: `table ${tableName}`,
          updated_at: expect.stringMatching(/^\d{4}-/),
        },
        google_play: {
          package_name: 'com.example.app',
          client_email: 'verifier@example.iam.gserviceaccount.com',
          push_audience: 'https://api.example.com/notifications/google-play/app',
          push_service_account: 'rtdn-push@example.iam.gserviceaccount.com',
          stored_in: `table ${tableName}`,
          updated_at: expect.stringMatching(/^\d{4}-/),
        },
        test_store: {
          enabled: true,
          public_key_sha256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
          stored_in: `table ${tableName}`,
        },
      });
      expect(JSON.stringify(output)).not.toContain('PRIVATE KEY');
    },
  },
  {
    command: 'webhooks set',
    // The receiver is on 127.0.0.1: a private URL, so the opt-in (docs/security.md).
    args: (ctx) => ['webhooks', 'set', '--app', appOf(ctx), '--url', ctx.receiver.url, '--allow-private-url'],
    prints: ['app_id', 'url', 'events', 'secret'],
    then: async (output, ctx) => {
      expect(output.secret).toMatch(/^whsec_/);
      expect(output.events).toBeNull(); // every kind, later ones too
      ctx.receiver.setSecret(output.secret);
      // A status change once the endpoint is set: a second purchase.
      const minted = JSON.parse(
        (
          await admin(
            'receipts',
            'mint',
            '--app',
            appOf(ctx),
            '--platform',
            'ios',
            '--product',
            'premium_monthly',
            '--json',
          )
        ).stdout,
      );
      await contractFetch(`${ctx.runtime.gateway.url}${SUBSCRIPTIONS_BASE}/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.app!.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ platform: 'ios', receipt_data: minted.receipt_data, user_id: 'cli-buyer-2' }),
      });
      await waitUntil(() => ctx.receiver.accepted().length > 0, 15_000, 'the webhook');
    },
  },
  {
    command: 'webhooks show',
    args: (ctx) => ['webhooks', 'show', '--app', appOf(ctx)],
    prints: ['app_id', 'url', 'enabled', 'disabled_reason', 'events', 'updated_at', 'paused_until'],
    then: (output, ctx) => {
      expect(output).toEqual({
        app_id: appOf(ctx),
        url: ctx.receiver.url,
        enabled: true,
        disabled_reason: null,
        events: null,
        updated_at: expect.any(String),
        paused_until: null,
      });
      expect(JSON.stringify(output)).not.toContain('whsec_');
    },
  },
  {
    command: 'webhooks deliveries',
    args: (ctx) => ['webhooks', 'deliveries', '--app', appOf(ctx), '--limit', '10'],
    prints: ['app_id', 'deliveries'],
    then: (output, ctx) => {
      expect(output.deliveries[0]).toMatchObject({
        event_id: expect.stringMatching(/^evt_/),
        status: 'delivered',
        attempts: 1,
      });
      ctx.eventId = output.deliveries[0].event_id;
    },
  },
  {
    command: 'webhooks redeliver',
    args: (ctx) => ['webhooks', 'redeliver', '--event', ctx.eventId!],
    prints: ['event_id', 'status', 'attempts', 'next_attempt_at', 'last_status_code', 'last_error'],
    then: (output, ctx) => expect(output.event_id).toBe(ctx.eventId),
  },
  {
    command: 'subscriptions rewrite',
    // A subscription as an earlier version stored it: whole-item index keys, nulls, the receipt in
    // PAYMENT; its purchase's owner on an item of its own, and a purchase nobody owned with a store state.
    args: async (ctx) => {
      const { record, owner } = await seedLegacyShapes(appOf(ctx));
      ctx.legacy = record;
      ctx.legacyOwner = owner;
      return ['subscriptions', 'rewrite'];
    },
    prints: ['examined', 'rewritten', 'purchases_moved'],
    then: async (output, ctx) => {
      const legacy = ctx.legacy as SubscriptionRecord;
      expect(output.rewritten).toBeGreaterThanOrEqual(2);
      const { items } = await listSubscriptions(
        legacy.app_id,
        { status: 'active', platform: 'ios' },
        { skip: 0, limit: 100 },
      );
      expect(items.map((item) => item.id)).toContain(legacy.id);
      const stored = await getSubscription(legacy.app_id, legacy.id);
      expect(stored?.record).toEqual(legacy);
      expect(stored?.payment.receipt_data).toBe('bGVnYWN5');
      // The owners are on their original transactions' items, where verification looks; the old items are gone.
      const owner = ctx.legacyOwner as { store: string; original_transaction_id: string };
      expect(output.purchases_moved).toBe(2);
      expect(await getPurchaseOwner(legacy.app_id, owner.original_transaction_id)).toEqual({
        user_id: 'legacy-user',
        subscription_id: legacy.id,
      });
      const unowned = await getConsistent(keys.purchase(legacy.app_id, `${owner.original_transaction_id}-unowned`));
      expect(unowned).toMatchObject({ store_state: { note: 'a notification before anyone verified' } });
      expect(unowned?.owner_user_id).toBeUndefined();
      const former = keys.formerPurchaseOwner(legacy.app_id, owner.store, owner.original_transaction_id);
      expect(await getConsistent(former)).toBeUndefined();
      const again = json(await admin('subscriptions', 'rewrite', '--json'));
      expect(again).toEqual({ examined: again.examined, rewritten: 0, purchases_moved: 0 });
    },
  },
  {
    command: 'customers reindex',
    // A profile as an earlier version stored it: not in the customers index, so the search misses it.
    args: async (ctx) => {
      const userId = 'legacy-profile-user';
      await ddb.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.userProfile(appOf(ctx), userId),
            type: 'user_profile',
            app_id: appOf(ctx),
            user_id: userId,
            first_seen: '2026-01-01T00:00:00.000Z',
            last_seen: '2026-01-02T00:00:00.000Z',
          },
        }),
      );
      expect(await customersNamed(ctx, 'legacy-profile')).toEqual([]);
      return ['customers', 'reindex'];
    },
    prints: ['examined', 'indexed'],
    then: async (output, ctx) => {
      expect(output.indexed).toBeGreaterThanOrEqual(1);
      expect(await customersNamed(ctx, 'legacy-profile')).toEqual(['legacy-profile-user']);
      expect(json(await admin('customers', 'reindex', '--json'))).toEqual({ examined: 0, indexed: 0 });
    },
  },
  {
    command: 'counts rebuild',
    // Counts as the aggregator left them, then spoiled: one too high, one for nothing that exists.
    args: async (ctx) => {
      await settleCounters();
      const app = appOf(ctx);
      ctx.counted = await totalsOf(app);
      const any = listCountCell(app, {});
      await ddb.send(
        new UpdateCommand({
          TableName: tableName,
          Key: any.key,
          UpdateExpression: 'SET #all = :wrong, #ghost = :ghost',
          ExpressionAttributeNames: { '#all': any.attribute, '#ghost': 'count#paused#web' },
          ExpressionAttributeValues: { ':wrong': 999, ':ghost': 5 },
        }),
      );
      return ['counts', 'rebuild', '--app', app];
    },
    prints: ['apps'],
    then: async (output, ctx) => {
      const app = appOf(ctx);
      expect(output.apps).toEqual([{ app_id: app, subscriptions: expect.any(Number), corrected: 2 }]);
      expect(output.apps[0].subscriptions).toBe((ctx.counted as Totals).all);
      expect(await totalsOf(app)).toEqual(ctx.counted);
      expect(await countMatching(app, { status: 'paused', platform: 'web' })).toBe(0);
      const again = json(await admin('counts', 'rebuild', '--app', app, '--json'));
      expect(again.apps[0].corrected).toBe(0);
    },
  },
];

type Totals = Awaited<ReturnType<typeof totalsOf>>;
async function totalsOf(appId: string) {
  return {
    all: await countMatching(appId, {}),
    active: await countMatching(appId, { status: 'active' }),
    ios: await countMatching(appId, { platform: 'ios' }),
  };
}

const json = (result: RunResult) => JSON.parse(result.stdout);

describe('every command of the operator CLI, run as a process', () => {
  const ctx = {} as Context;
  beforeAll(async () => {
    await createOwnTable();
    ctx.dir = await mkdtemp(join(tmpdir(), 'cli-commands-'));
    ctx.receiver = await startWebhookReceiver();
    ctx.runtime = await startLocalRuntime({ port: 0, sweepIntervalSeconds: 60 });
  });
  afterAll(async () => {
    await ctx.runtime?.stop();
    await ctx.receiver?.close();
  });

  it('the table names exactly the commands of the help text', async () => {
    const help = await admin('--help', '--json');
    expect(help.code).toBe(0);
    const documented = (json(help).commands as string[]).map((usage) => usage.split(/ \[?--/)[0]!.trim());
    expect(documented.sort()).toEqual(CASES.map((c) => c.command).sort());
  });

  for (const c of CASES) {
    it(`${c.command}: exit 0 and its documented output`, async () => {
      const args = await c.args(ctx);
      expect(args.slice(0, c.command.split(' ').length).join(' ')).toBe(c.command);
      const result = await admin(...args, '--json');
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const output = json(result);
      for (const field of c.prints) expect(output, `${c.command} prints ${field}`).toHaveProperty(field);
      await c.then?.(output, ctx);
    });
  }

  it('exit codes: 2 for a command line that is wrong, 1 for a well-formed command that fails', async () => {
    const unknown = await admin('stores', 'apple', 'explode', '--json');
    expect(unknown.code).toBe(2);
    expect(json(unknown).error.code).toBe('USAGE');
    const missingOption = await admin('stores', 'apple', 'set', '--app', appOf(ctx), '--json');
    expect(missingOption.code).toBe(2);
    const notFound = await admin('keys', 'list', '--app', 'app_0000000000000000', '--json');
    expect(notFound.code).toBe(1);
    expect(json(notFound).error.code).toBe('NOT_FOUND');
    const noTestStore = json(await admin('apps', 'create', '--name', 'no test store', '--json'));
    const notTestStore = await admin(
      'receipts',
      'mint',
      '--app',
      noTestStore.app_id,
      '--platform',
      'ios',
      '--product',
      'premium_monthly',
      '--json',
    );
    expect(notTestStore.code).toBe(1);
    expect(json(notTestStore).error.code).toBe('NOT_TEST_STORE');
  });

  it('--help after a command or a group shows their usage only; a group named alone lists its commands', async () => {
    const group = await admin('apps', '--help', '--json');
    expect(group.code).toBe(0);
    expect(json(group).commands).toEqual([
      'apps create --name N [--test-store] [--currency USD] [--tier standard|premium]',
      'apps list [--scan]',
      'apps update --app A [--restore-policy block|transfer] [--require-user-token on|off] [--test-store on|off] [--support-email ADDRESS|off]',
      'apps user-token-secret --app A [--rotate]',
    ]);
    // Help wins over the options given with it: nothing is created.
    const one = await admin('apps', 'create', '--name', 'not created', '--help');
    expect(one.code).toBe(0);
    expect(one.stdout.trim().split('\n').at(-1)).toBe(
      '  apps create --name N [--test-store] [--currency USD] [--tier standard|premium]',
    );
    const listed = json(await admin('apps', 'list', '--json')).apps as { name: string }[];
    expect(listed.map((app) => app.name)).not.toContain('not created');
    const alone = await admin('stores', 'apple');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe(
      [
        'error: unknown command "stores apple"',
        'Usage: npm run --silent admin -- <command> [--json] [--aws]',
        '',
        '  stores apple set --app A --bundle-id B --environment Sandbox|Production [--app-apple-id N (required for Production)] [--issuer-id I --key-id K --key-file F.p8]',
        '  stores google set --app A --package-name P --service-account-file F.json [--push-audience URL --push-service-account EMAIL]',
        '  stores show --app A',
        '',
      ].join('\n'),
    );
    // As the value of an option, --help is that value: parseArgs refuses it as ambiguous, nothing is shown or created.
    const asValue = await admin('apps', 'create', '--name', '--help', '--json');
    expect(asValue.code).toBe(2);
    expect(json(asValue).error.code).toBe('USAGE');
    const unknown = await admin('nonsense', '--help', '--json');
    expect(unknown.code).toBe(2);
    expect(json(unknown).error.message).toMatch(/^unknown command "nonsense"\n/);
  });

  it('apps list --scan: an app stored before the directory existed is listed once a scan has found it', async () => {
    const older = {
      app_id: 'app_0123456789abcdef',
      name: 'from an older version',
      reporting_currency: 'EUR',
      test_store: false,
      created_at: '2025-01-02T03:04:05.000Z',
    };
    await ddb.send(
      new PutCommand({ TableName: tableName, Item: { ...keys.app(older.app_id), type: 'app', ...older } }),
    );
    const before = json(await admin('apps', 'list', '--json')).apps as { app_id: string }[];
    expect(before.map((app) => app.app_id)).not.toContain(older.app_id);

    const scan = await admin('apps', 'list', '--scan');
    expect(scan.code, scan.stderr).toBe(0);
    // Progress on stderr as the pages go; the apps on stdout, oldest first, one line each.
    expect(scan.stderr).toMatch(/^scanned \d+ item\(s\), \d+ app\(s\) found$/m);
    expect(scan.stdout).toMatch(/^Scanned \d+ item\(s\): \d+ app\(s\) in the directory\.$/m);
    const lines = scan.stdout.split('\n');
    expect(lines[2]).toBe(
      'app_0123456789abcdef  "from an older version"  EUR  test store off  restore block  no user tokens  created 2025-01-02T03:04:05.000Z  stores none',
    );

    const after = json(await admin('apps', 'list', '--json')).apps as { app_id: string }[];
    expect(after[0]).toEqual({
      ...older,
      restore_policy: 'block',
      require_user_token: false,
      support_email: null,
      app_store_configured: false,
      google_play_configured: false,
    });
    expect(after.slice(1).map((app) => app.app_id)).toEqual(before.map((app) => app.app_id));
    // Scanning again finds the same apps and lists each once.
    const again = json(await admin('apps', 'list', '--scan', '--json')).apps;
    expect(again).toEqual(after);
  });

  it('stores google set: without --push-audience notifications are refused (null), a push account alone is a usage error', async () => {
    const account = {
      client_email: 'verifier@example.iam.gserviceaccount.com',
      private_key: generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
    };
    const base = [
      'stores',
      'google',
      'set',
      '--app',
      appOf(ctx),
      '--package-name',
      'com.example.app',
      '--service-account-file',
      await file(ctx, 'account-no-push.json', account),
    ];
    const plain = await admin(...base, '--json');
    expect(plain.code, plain.stdout).toBe(0);
    expect(json(plain)).toMatchObject({ push_audience: null, push_service_account: null });
    const text = await admin(...base);
    expect(text.stdout).toContain('No --push-audience: real-time developer notifications are refused.');
    const alone = await admin(...base, '--push-service-account', 'rtdn@example.com', '--json');
    expect(alone.code).toBe(2);
    expect(json(alone).error.message).toContain('--push-audience and --push-service-account go together');
    const audienceAlone = await admin(...base, '--push-audience', 'aud', '--json');
    expect(audienceAlone.code).toBe(2);
    expect(json(audienceAlone).error.message).toContain('--push-audience and --push-service-account go together');
    const badEmail = await admin(...base, '--push-audience', 'aud', '--push-service-account', 'not-an-email', '--json');
    expect(badEmail.code).not.toBe(0);
    expect(json(badEmail).error.message).toContain('push_service_account');
  });

  it('apps update --test-store on|off: an app created without the test store gets it (and a key pair) later; off refuses its receipts', async () => {
    const app = json(await admin('apps', 'create', '--name', 'test store later', '--json'));
    await admin(
      'products',
      'put',
      '--app',
      app.app_id,
      '--file',
      await file(ctx, 'later-products.json', [PRODUCT]),
      '--json',
    );
    const verify = (receipt: string, user: string) =>
      contractFetch(`${ctx.runtime.gateway.url}${SUBSCRIPTIONS_BASE}/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ platform: 'ios', receipt_data: receipt, user_id: user }),
      });
    const mint = () =>
      admin('receipts', 'mint', '--app', app.app_id, '--platform', 'ios', '--product', 'premium_monthly', '--json');
    const before = await mint();
    expect(json(before).error).toMatchObject({
      code: 'NOT_TEST_STORE',
      message: expect.stringContaining(`apps update --app ${app.app_id} --test-store on`),
    });

    const on = await admin('apps', 'update', '--app', app.app_id, '--test-store', 'on', '--json');
    expect(on.code, on.stdout).toBe(0);
    expect(json(on)).toEqual({ app_id: app.app_id, test_store: true });
    const minted = json(await mint());
    expect((await verify(minted.receipt_data, 'later-buyer')).status).toBe(200);

    expect(json(await admin('apps', 'update', '--app', app.app_id, '--test-store', 'off', '--json'))).toEqual({
      app_id: app.app_id,
      test_store: false,
    });
    const refused = await verify(minted.receipt_data, 'later-buyer');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error.code).toBe('INVALID_RECEIPT');
    expect((await mint()).code).toBe(1);

    // On again: the same key pair, so the receipt minted before verifies again.
    await admin('apps', 'update', '--app', app.app_id, '--test-store', 'on', '--json');
    expect((await verify(minted.receipt_data, 'later-buyer')).status).toBe(200);

    const bad = await admin('apps', 'update', '--app', app.app_id, '--test-store', 'yes', '--json');
    expect(bad.code).toBe(2);
    expect(json(bad).error.message).toBe('--test-store must be on or off');
  });

  it("apps update --support-email ADDRESS|off: RevenueCat's customer center offers that address, off removes it", async () => {
    const app = json(await admin('apps', 'create', '--name', 'support email', '--json'));
    const supportEmail = async () => {
      const res = await contractFetch(`${ctx.runtime.gateway.url}/v1/customercenter/someone`, {
        headers: { authorization: `Bearer ${app.sdk_key}`, 'x-platform': 'iOS' },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { customer_center: { support: { email: string } } }).customer_center.support.email;
    };
    expect(await supportEmail()).toBe('');
    const set = await admin('apps', 'update', '--app', app.app_id, '--support-email', 'help@example.com', '--json');
    expect(set.code, set.stdout).toBe(0);
    expect(json(set)).toEqual({ app_id: app.app_id, support_email: 'help@example.com' });
    expect(await supportEmail()).toBe('help@example.com');
    const listed = json(await admin('apps', 'list', '--json')).apps.find(
      (a: { app_id: string }) => a.app_id === app.app_id,
    );
    expect(listed.support_email).toBe('help@example.com');
    const text = await admin('apps', 'update', '--app', app.app_id, '--support-email', 'off');
    expect(text.stdout.trim()).toBe(`${app.app_id}: the customer center offers no support email.`);
    expect(await supportEmail()).toBe('');
    const bad = await admin('apps', 'update', '--app', app.app_id, '--support-email', 'not an address', '--json');
    expect(bad.code).toBe(2);
    expect(json(bad).error.message).toBe('--support-email must be an email address, or off');
  });

  it('webhooks set --events: an unknown kind is a usage error naming the kinds; show prints the filter', async () => {
    const bad = await admin(
      'webhooks',
      'set',
      '--app',
      appOf(ctx),
      '--url',
      ctx.receiver.url,
      '--allow-private-url',
      '--events',
      'subscription.status_changed,subscription.renewd',
      '--json',
    );
    expect(bad.code).toBe(2);
    expect(json(bad).error).toEqual({
      code: 'USAGE',
      message: expect.stringContaining('"subscription.renewd" is not an event kind; the kinds are: all, '),
    });
    for (const kind of EVENT_KINDS) expect(json(bad).error.message).toContain(kind);
    // Refused before anything changed: the endpoint still receives every kind.
    expect(json(await admin('webhooks', 'show', '--app', appOf(ctx), '--json')).events).toBeNull();

    const noEndpoint = json(await admin('apps', 'create', '--name', 'no endpoint', '--json'));
    const none = await admin('webhooks', 'show', '--app', noEndpoint.app_id, '--json');
    expect([none.code, json(none).error.code]).toEqual([1, 'NOT_FOUND']);

    const text = await admin('webhooks', 'show', '--app', appOf(ctx));
    expect(text.stdout).toContain('Receives: every event kind (kinds added later too)');
    expect(text.stdout).not.toContain('whsec_');
  });

  it('webhooks set refuses a loopback, private or link-local URL unless --allow-private-url; nothing is stored', async () => {
    const app = json(await admin('apps', 'create', '--name', 'ssrf', '--json'));
    for (const [url, refusal] of [
      ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
      ['https://10.0.0.8/hooks', '10.0.0.8 is a private address'],
      ['https://[::ffff:127.0.0.1]/hooks', '::ffff:7f00:1 is a loopback address'],
      [ctx.receiver.url, '127.0.0.1 is a loopback address'],
      ['http://localhost:4000/', 'localhost resolves to'],
    ] as const) {
      const refused = await admin('webhooks', 'set', '--app', app.app_id, '--url', url, '--json');
      expect([refused.code, json(refused).error.code], url).toEqual([2, 'USAGE']);
      expect(json(refused).error.message, url).toContain(`--url must lead to a public address: ${refusal}`);
      expect(json(refused).error.message, url).toContain('--allow-private-url');
    }
    const none = await admin('webhooks', 'show', '--app', app.app_id, '--json');
    expect(json(none).error.code).toBe('NOT_FOUND');
    const allowed = await admin(
      'webhooks',
      'set',
      '--app',
      app.app_id,
      '--url',
      ctx.receiver.url,
      '--allow-private-url',
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('delivered only where WEBHOOK_ALLOW_PRIVATE_TARGETS=1');
  });

  it('webhooks show says when the endpoint is paused (its attempts kept timing out), and webhooks set closes it', async () => {
    const app = json(await admin('apps', 'create', '--name', 'paused', '--json'));
    const url = 'https://hooks.example.com/paused';
    expect((await admin('webhooks', 'set', '--app', app.app_id, '--url', url, '--json')).code).toBe(0);
    for (let i = 0; i < 3; i++) await countEndpointTimeout(app.app_id, url);
    const until = new Date(Date.now() + 600_000).toISOString();
    await setEndpointPause(app.app_id, url, until);
    expect(json(await admin('webhooks', 'show', '--app', app.app_id, '--json')).paused_until).toBe(until);
    expect((await admin('webhooks', 'show', '--app', app.app_id)).stdout).toContain(
      `Paused until ${until}: its last 3 attempts timed out`,
    );
    await admin('webhooks', 'set', '--app', app.app_id, '--url', url, '--json');
    expect(json(await admin('webhooks', 'show', '--app', app.app_id, '--json')).paused_until).toBeNull();
  });

  it('an endpoint set to status changes only gets them; a renewal is listed as filtered, unsent, and sent when redelivered', async () => {
    const app = json(await admin('apps', 'create', '--name', 'kinds', '--test-store', '--json'));
    await admin('products', 'put', '--app', app.app_id, '--file', await file(ctx, 'kinds.json', [PRODUCT]), '--json');
    const set = await admin(
      'webhooks',
      'set',
      '--app',
      app.app_id,
      '--url',
      ctx.receiver.url,
      '--allow-private-url',
      '--events',
      'subscription.status_changed',
      '--json',
    );
    expect(set.code, set.stdout).toBe(0);
    expect(json(set)).toMatchObject({ events: ['subscription.status_changed'] });
    ctx.receiver.setSecret(json(set).secret);
    expect(json(await admin('webhooks', 'show', '--app', app.app_id, '--json')).events).toEqual([
      'subscription.status_changed',
    ]);
    const verify = (receipt_data: string) =>
      contractFetch(`${ctx.runtime.gateway.url}${SUBSCRIPTIONS_BASE}/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ platform: 'ios', receipt_data, user_id: 'kinds-buyer' }),
      });
    const mint = async (...args: string[]) =>
      json(
        await admin(
          'receipts',
          'mint',
          '--app',
          app.app_id,
          '--platform',
          'ios',
          '--product',
          PRODUCT.id,
          ...args,
          '--json',
        ),
      );
    const received = (kind: string) =>
      ctx.receiver.accepted().filter((r) => r.payload.data.user_id === 'kinds-buyer' && r.payload.event === kind);

    const bought = await mint();
    expect((await verify(bought.receipt_data)).status).toBe(200);
    await waitUntil(() => received('subscription.status_changed').length > 0, 15_000, 'the status change');
    // The store renewed it: the app verifies the renewal's receipt (the path store notifications take too).
    expect((await verify((await mint('--renews', bought.transaction_id)).receipt_data)).status).toBe(200);
    const listed = async () =>
      json(await admin('webhooks', 'deliveries', '--app', app.app_id, '--json')).deliveries as any[];
    let renewal: any;
    await waitUntil(
      async () => (renewal = (await listed()).find((d) => d.event === 'subscription.renewed')) !== undefined,
      15_000,
      'the renewal in the deliveries',
    );
    expect(renewal).toMatchObject({ status: 'filtered', attempts: 0, next_attempt_at: null, last_status_code: null });
    expect(ctx.receiver.received.filter((r) => r.id === renewal.event_id)).toEqual([]);

    const again = await admin('webhooks', 'redeliver', '--event', renewal.event_id, '--json');
    expect(json(again)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(received('subscription.renewed').map((r) => r.id)).toEqual([renewal.event_id]);
  });

  it('receipts mint --expires-in takes a negative number both as "-60" and as "=-60" (an expired purchase)', async () => {
    for (const spelling of [['--expires-in', '-60'], ['--expires-in=-60']]) {
      const result = await admin(
        'receipts',
        'mint',
        '--app',
        appOf(ctx),
        '--platform',
        'ios',
        '--product',
        'premium_monthly',
        ...spelling,
        '--json',
      );
      expect(result.code, result.stdout).toBe(0);
      const payload = JSON.parse(
        Buffer.from(
          Buffer.from(json(result).receipt_data, 'base64').toString('utf8').split('.')[1]!,
          'base64url',
        ).toString('utf8'),
      );
      expect(payload.expiresDate - payload.purchaseDate).toBe(-60_000);
    }
  });
});
