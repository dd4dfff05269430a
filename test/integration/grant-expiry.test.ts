/**
 * Grants against DynamoDB Local: each change writes the grant and its outbox item in one
 * transaction, and the expiry sweeper (the due index, kind GRT) ends a grant at its expires_at,
 * once. The clock is injected by faking Date alone, as the subscription sweeper's tests do.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Its own table: the sweeper's checkpoint per kind is one item, which other files' sweeps would move.
  process.env.TABLE_NAME = `grant-expiry-${process.pid}`;
});

import { handler as expiryJob } from '../../functions/jobs/expire-subscriptions.js';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { getGrant } from '../../lib/data/grant-items.js';
import { grantKey } from '../../lib/data/table-keys.js';
import { customerInfo } from '../../lib/services/customer-info.js';
import { expireDueGrants, grantEntitlement, revokeEntitlement } from '../../lib/services/grants.js';
import { createTestApp } from '../support/fixtures.js';
import { createOwnTable } from '../support/own-table.js';

const clockAt = (iso: string) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
};
const now = () => new Date();

/** The events of the app's grants the outbox holds, oldest first, as `kind user`. */
async function outboxOf(appId: string): Promise<string[]> {
  const { Items = [] } = await ddb.send(
    new ScanCommand({
      TableName: tableName,
      ConsistentRead: true,
      FilterExpression: '#type = :outbox AND app_id = :app',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':outbox': 'outbox', ':app': appId },
    }),
  );
  return Items.map((item) => item.payload)
    .sort((a, b) => `${a.timestamp}`.localeCompare(`${b.timestamp}`))
    .map((payload) => `${payload.event} ${payload.data.user_id}`);
}

describe('grants and their end by the sweeper (injected clock, own table)', () => {
  let appId: string;
  beforeAll(async () => {
    await createOwnTable();
    ({ appId } = await createTestApp());
    await putEntitlements(appId, [{ id: 'pro', name: 'Pro', products: ['premium_monthly'] }]);
    // The first run of each kind looks back a week and checkpoints; the cases below run later.
    clockAt('2026-05-01T00:00:00.000Z');
    await expireDueGrants(now());
    vi.useRealTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a grant runs out at its expires_at: the sweeper ends it once, with one entitlement.expired', async () => {
    clockAt('2026-05-02T10:00:00.000Z');
    const granted = await grantEntitlement(appId, 'u-day', 'pro', { duration: 'P1D' });
    expect(granted.expires_at).toBe('2026-05-03T10:00:00.000Z');
    expect(await getGrant(appId, 'u-day', 'pro')).toMatchObject({ version: 1, ended_at: null });

    clockAt('2026-05-03T09:59:59.000Z');
    expect(await expireDueGrants(now())).toEqual({ examined: 0, ended: 0, failed: 0 });
    expect((await customerInfo(appId, 'u-day', now()))?.entitlements.pro?.active).toBe(true);

    clockAt('2026-05-03T10:00:30.000Z');
    // Customer info decides at the time of the read, before any sweep.
    expect((await customerInfo(appId, 'u-day', now()))?.entitlements.pro).toMatchObject({
      active: false,
      period_type: 'grant',
      expires_at: '2026-05-03T10:00:00.000Z',
    });
    // The job the schedule runs sweeps subscriptions and grants.
    expect(await expiryJob()).toMatchObject({ grants: { examined: 1, ended: 1, failed: 0 } });
    expect(await getGrant(appId, 'u-day', 'pro')).toMatchObject({
      version: 2,
      ended_at: '2026-05-03T10:00:00.000Z',
      end_reason: 'expired',
    });
    // Out of the due index: later runs find nothing.
    expect(await expireDueGrants(now())).toEqual({ examined: 0, ended: 0, failed: 0 });
    clockAt('2026-05-04T10:00:00.000Z');
    expect(await expireDueGrants(now())).toEqual({ examined: 0, ended: 0, failed: 0 });
    expect((await outboxOf(appId)).filter((event) => event.endsWith(' u-day'))).toEqual([
      'entitlement.granted u-day',
      'entitlement.expired u-day',
    ]);
  });

  it('two overlapping sweeps end a grant once', async () => {
    clockAt('2026-05-05T10:00:00.000Z');
    await grantEntitlement(appId, 'u-race', 'pro', { duration: 'PT1H' });
    clockAt('2026-05-05T11:00:01.000Z');
    const [first, second] = await Promise.all([expireDueGrants(now()), expireDueGrants(now())]);
    expect(first.ended + second.ended).toBe(1);
    expect(first.failed + second.failed).toBe(0);
    expect((await outboxOf(appId)).filter((event) => event === 'entitlement.expired u-race')).toHaveLength(1);
  });

  it('an extension moves the grant in the due index: not ended at its first end, ended at the new one', async () => {
    clockAt('2026-05-06T10:00:00.000Z');
    await grantEntitlement(appId, 'u-extended', 'pro', { duration: 'P1D' });
    clockAt('2026-05-07T09:00:00.000Z');
    expect((await grantEntitlement(appId, 'u-extended', 'pro', { duration: 'P1D' })).expires_at).toBe(
      '2026-05-08T10:00:00.000Z',
    );
    clockAt('2026-05-07T10:30:00.000Z');
    expect(await expireDueGrants(now())).toMatchObject({ ended: 0 });
    expect((await customerInfo(appId, 'u-extended', now()))?.entitlements.pro?.active).toBe(true);
    clockAt('2026-05-08T10:00:00.000Z');
    expect(await expireDueGrants(now())).toMatchObject({ examined: 1, ended: 1 });
  });

  it('a revoked grant leaves the due index: the sweeper sends no entitlement.expired for it', async () => {
    clockAt('2026-05-09T10:00:00.000Z');
    await grantEntitlement(appId, 'u-revoked', 'pro', { duration: 'PT2H' });
    clockAt('2026-05-09T11:00:00.000Z');
    expect((await revokeEntitlement(appId, 'u-revoked', 'pro')).revoked).toBe(true);
    const item = await getConsistent(grantKey(appId, 'u-revoked', 'pro'));
    expect(item).toMatchObject({ end_reason: 'revoked', ended_at: '2026-05-09T11:00:00.000Z' });
    expect(item).not.toHaveProperty('due_pk');
    clockAt('2026-05-09T13:00:00.000Z');
    expect(await expireDueGrants(now())).toEqual({ examined: 0, ended: 0, failed: 0 });
    expect((await outboxOf(appId)).filter((event) => event.endsWith(' u-revoked'))).toEqual([
      'entitlement.granted u-revoked',
      'entitlement.revoked u-revoked',
    ]);
  });

  it('the grant, the outbox item and the new profile are one transaction; a grant writes no subscription', async () => {
    clockAt('2026-05-10T10:00:00.000Z');
    const { Items: before = [] } = await ddb.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
    await grantEntitlement(appId, 'u-new', 'pro', { duration: 'P1M' });
    const { Items: after = [] } = await ddb.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
    const added = after
      .filter((item) => !before.some((old) => old.pk === item.pk && old.sk === item.sk))
      .map((item) => `${String(item.pk).split('#')[0]} ${item.sk}`)
      .sort();
    expect(added).toEqual(['OUTBOX OUTBOX', 'USER GRANT#pro', 'USER PROFILE']);
    expect(after.find((item) => item.sk === 'PROFILE' && item.user_id === 'u-new')).toMatchObject({
      first_seen: '2026-05-10T10:00:00.000Z',
    });
  });
});
