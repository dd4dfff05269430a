/**
 * What an app shows and what one user is shown, against DynamoDB Local: the launch's bounded read
 * (the app's settings in one batch read beside the user's profile and subscriptions, two round
 * trips), targeting by segment and platform, and the warm function's copy of the app's settings
 * (OFFERINGS_CACHE_TTL_SECONDS).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.OFFERINGS_CACHE_TTL_SECONDS = '60';
});

import { readConfig } from '../../lib/core/config.js';
import { putSegments } from '../../lib/data/app-config.js';
import { putOfferings, putRemoteSwitches } from '../../lib/data/offerings.js';
import { mergeProfileMaps } from '../../lib/data/profiles.js';
import type { OfferingsDocument, RemoteSwitch } from '../../lib/schemas/offering.js';
import { appOfferings, offeringsForUser } from '../../lib/services/offerings.js';
import { dynamoDbRoundTrips } from '../support/dynamodb-calls.js';
import { createTestApp } from '../support/fixtures.js';
import { seedSubscription } from '../support/subscriptions.js';

afterEach(() => {
  vi.useRealTimers();
});

const offering = (id: string) => ({
  id,
  description: '',
  metadata: {},
  packages: [{ id: '$rc_monthly', products: { ios: 'premium_monthly' }, metadata: {} }],
});

const DOCUMENT: OfferingsDocument = {
  current: 'standard',
  offerings: [offering('standard'), offering('german'), offering('loyal')],
  placements: [
    {
      id: 'paywall',
      rules: [
        { audience: { segment: 'paying' }, offering: 'loyal' },
        { audience: { segment: 'german_speakers', platform: 'ios' }, offering: 'german' },
      ],
      default: 'standard',
    },
  ],
};

const SWITCHES: RemoteSwitch[] = [
  {
    key: 'discount',
    type: 'number',
    description: '',
    value: 0,
    rules: [{ audience: { segment: 'never_subscribed' }, value: 20 }],
  },
];

async function appShowing() {
  const app = await createTestApp();
  await putSegments(app.appId, [
    {
      id: 'german_speakers',
      name: 'German speakers',
      match: 'all',
      conditions: [{ field: 'attributes.language', op: 'eq', value: 'de' }],
    },
  ]);
  await putOfferings(app.appId, DOCUMENT, []);
  await putRemoteSwitches(app.appId, SWITCHES);
  return app;
}

describe('offerings', () => {
  it('as stored: the app reads them fresh; an app that has put nothing has none', async () => {
    const app = await appShowing();
    expect(await appOfferings(app.appId)).toEqual({
      current_offering_id: 'standard',
      offerings: DOCUMENT.offerings,
      placements: DOCUMENT.placements,
      switches: SWITCHES,
      paywalls: [],
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const empty = await createTestApp();
    expect(await appOfferings(empty.appId)).toEqual({
      current_offering_id: null,
      offerings: [],
      placements: [],
      switches: [],
      paywalls: [],
      updated_at: null,
    });
  });

  it('updated_at is when offerings or switches were last put, whichever came later', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 9, minute));
    const first = await createTestApp();
    await putOfferings(first.appId, DOCUMENT, [], at(1));
    expect((await appOfferings(first.appId)).updated_at).toBe(at(1).toISOString());
    await putRemoteSwitches(first.appId, SWITCHES, at(2));
    expect((await appOfferings(first.appId)).updated_at).toBe(at(2).toISOString());
    await putOfferings(first.appId, DOCUMENT, [], at(3));
    expect((await appOfferings(first.appId)).updated_at).toBe(at(3).toISOString());
    const switchesOnly = await createTestApp();
    await putRemoteSwitches(switchesOnly.appId, SWITCHES, at(4));
    expect(await appOfferings(switchesOnly.appId)).toMatchObject({
      current_offering_id: null,
      switches: SWITCHES,
      updated_at: at(4).toISOString(),
    });
  });

  it("chosen by the user's segments and the request's platform, with the rule that chose", async () => {
    const app = await appShowing();
    await mergeProfileMaps(
      app.appId,
      'anna',
      () => ({ attributes: { language: 'de' }, custom_properties: {} }),
      new Date(),
    );
    const anna = await offeringsForUser(app.appId, 'anna', 'ios');
    expect(anna.segments).toEqual(expect.arrayContaining(['never_subscribed', 'german_speakers']));
    expect(anna.placements.paywall).toEqual({
      offering_id: 'german',
      guide_page: null,
      chosen_by: { rule: 1, audience: { segment: 'german_speakers', platform: 'ios' } },
    });
    expect(anna.switches.discount).toEqual({
      value: 20,
      chosen_by: { rule: 0, audience: { segment: 'never_subscribed' } },
    });
    expect(anna).toMatchObject({ user_id: 'anna', platform: 'ios', current_offering_id: 'standard' });
    expect(anna.offerings.map((o) => o.id)).toEqual(['standard', 'german', 'loyal']);
    // On Android the platform rule does not hold.
    expect((await offeringsForUser(app.appId, 'anna', 'android')).placements.paywall?.offering_id).toBe('standard');

    // A paying subscriber: the first rule wins over the second, and the discount is gone.
    await seedSubscription(app.appId, { user_id: 'anna' });
    const paying = await offeringsForUser(app.appId, 'anna', 'ios');
    expect(paying.placements.paywall?.chosen_by).toEqual({ rule: 0, audience: { segment: 'paying' } });
    expect(paying.switches.discount).toEqual({ value: 0, chosen_by: 'default' });

    // Never seen: what a new install is shown.
    const stranger = await offeringsForUser(app.appId, 'stranger', undefined);
    expect(stranger).toMatchObject({ platform: null, segments: ['never_subscribed'] });
    expect(stranger.placements.paywall).toEqual({ offering_id: 'standard', guide_page: null, chosen_by: 'default' });
  });

  it("a launch's read: the app's settings beside the user's profile and subscriptions, two round trips", async () => {
    const app = await appShowing();
    await seedSubscription(app.appId, { user_id: 'reader' });
    const trips = await dynamoDbRoundTrips(async () => {
      await offeringsForUser(app.appId, 'reader', 'ios');
    });
    expect(trips.flat().sort()).toEqual(['BatchGetItem', 'BatchGetItem', 'Query', 'Query']);
    expect(trips.length).toBeLessThanOrEqual(2);
    // Warm: the app's settings come from the function's copy.
    const warm = await dynamoDbRoundTrips(async () => {
      await offeringsForUser(app.appId, 'reader', 'ios');
    });
    expect(warm.flat().sort()).toEqual(['BatchGetItem', 'Query', 'Query']);
  });

  it('a warm function keeps the app settings for OFFERINGS_CACHE_TTL_SECONDS; GET /v1/offerings reads them fresh', async () => {
    const app = await appShowing();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    expect((await offeringsForUser(app.appId, 'u', 'ios')).current_offering_id).toBe('standard');
    await putOfferings(app.appId, { ...DOCUMENT, current: 'loyal' }, []);
    vi.advanceTimersByTime(59_000);
    expect((await offeringsForUser(app.appId, 'u', 'ios')).current_offering_id).toBe('standard');
    expect((await appOfferings(app.appId)).current_offering_id).toBe('loyal');
    vi.advanceTimersByTime(2_000);
    expect((await offeringsForUser(app.appId, 'u', 'ios')).current_offering_id).toBe('loyal');
  });

  it('OFFERINGS_CACHE_TTL_SECONDS is at most 300, 0 turning the cache off', () => {
    expect(readConfig({}).offeringsCacheTtlSeconds).toBe(60);
    expect(readConfig({ OFFERINGS_CACHE_TTL_SECONDS: '0' }).offeringsCacheTtlSeconds).toBe(0);
    expect(readConfig({ OFFERINGS_CACHE_TTL_SECONDS: '300' }).offeringsCacheTtlSeconds).toBe(300);
    expect(() => readConfig({ OFFERINGS_CACHE_TTL_SECONDS: '301' })).toThrow(/at most 300/);
  });
});
