/**
 * The app's paywall bundles and what its paywalls show of each product, against DynamoDB Local:
 * versions recorded with a conditional put (concurrent uploads of one id get distinct versions,
 * other ids are kept), read with the app's other shown settings in the launch's one batch read,
 * and the offerings' copy of the catalogue following `products put`.
 */
import { describe, expect, it } from 'vitest';
import { putOfferings, readShownSettings, refreshOfferedProducts } from '../../lib/data/offerings.js';
import { readPaywalls, recordPaywallVersion } from '../../lib/data/paywalls.js';
import { listProducts, putProducts } from '../../lib/data/products.js';
import { createTestApp, PREMIUM_MONTHLY, PRO_YEARLY, STANDARD_OFFERINGS } from '../support/fixtures.js';

const upload = (id: string, n: number) => ({
  id,
  name: `${id} page`,
  sha256: n.toString(16).padStart(64, '0'),
  bytes: 100 + n,
  files: 1,
});

const DOCUMENT = STANDARD_OFFERINGS;

describe('paywall bundles in the table', () => {
  it('records each upload of an id as its next version, keeping the other ids, sorted by id', async () => {
    const app = await createTestApp();
    const now = new Date('2026-12-02T10:00:00.000Z');
    expect(await recordPaywallVersion(app.appId, upload('main', 1), now)).toEqual({
      ...upload('main', 1),
      version: 1,
      uploaded_at: now.toISOString(),
    });
    await recordPaywallVersion(app.appId, upload('intro', 2), now);
    const second = await recordPaywallVersion(app.appId, upload('main', 3), now);
    expect(second.version).toBe(2);
    const { paywalls, revision } = await readPaywalls(app.appId);
    expect(paywalls.map((p) => [p.id, p.version, p.sha256.slice(-1)])).toEqual([
      ['intro', 1, '2'],
      ['main', 2, '3'],
    ]);
    expect(revision).toBe(3);
  });

  it('gives concurrent uploads of one id distinct versions (the conditional put retries on a conflict)', async () => {
    const app = await createTestApp();
    const recorded = await Promise.all([1, 2, 3, 4].map((n) => recordPaywallVersion(app.appId, upload('main', n))));
    expect(recorded.map((p) => p.version).sort()).toEqual([1, 2, 3, 4]);
    const [stored] = (await readPaywalls(app.appId)).paywalls;
    expect(stored!.version).toBe(4);
    // The last version's bytes are the upload that got it.
    expect(stored!.sha256).toBe(recorded.find((p) => p.version === 4)!.sha256);
  });

  it('reads the bundles and the offered products in the launch read, and follows the catalogue', async () => {
    const app = await createTestApp();
    await recordPaywallVersion(app.appId, upload('main', 1));
    await putOfferings(app.appId, DOCUMENT, await listProducts(app.appId));
    const settings = await readShownSettings(app.appId);
    expect(settings.paywalls.map((p) => p.id)).toEqual(['main']);
    // Only the products the packages name, with what a paywall shows of them.
    expect(settings.products).toEqual({
      [PREMIUM_MONTHLY.id]: {
        name: PREMIUM_MONTHLY.name,
        description: PREMIUM_MONTHLY.description,
        price: PREMIUM_MONTHLY.price,
        currency: PREMIUM_MONTHLY.currency,
        billing_period: PREMIUM_MONTHLY.billing_period,
      },
    });
    await putProducts(app.appId, [
      { ...PREMIUM_MONTHLY, price: 12.99 },
      { ...PRO_YEARLY, price: 1 },
    ]);
    await refreshOfferedProducts(app.appId, await listProducts(app.appId));
    const refreshed = await readShownSettings(app.appId);
    expect(refreshed.products[PREMIUM_MONTHLY.id]?.price).toBe(12.99);
    expect(Object.keys(refreshed.products)).toEqual([PREMIUM_MONTHLY.id]);
    // An app without offerings has nothing to refresh, and gets no offerings item from it.
    const bare = await createTestApp();
    await refreshOfferedProducts(bare.appId, await listProducts(bare.appId));
    expect((await readShownSettings(bare.appId)).offerings).toBeUndefined();
  });
});
