/**
 * Offerings, placements and remote switches as an operator and an app use them: set with the CLI
 * as a process (every problem of a file listed, nothing written), read over HTTP through both APIs
 * (GET /v1/offerings, GET /v1/customers/{user_id}/offerings, the mobile GET /offerings and
 * /v2/offerings), targeted by a rule segment and the request's platform, each app seeing its own.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CUSTOMERS_BASE, OFFERINGS_PATH } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { OFFERINGS } from '../support/offerings.js';
import { admin } from '../support/processes.js';

const { request } = useGateway();

const SWITCHES = [
  {
    key: 'show_trial_banner',
    type: 'boolean',
    value: true,
    rules: [{ audience: { segment: 'paying' }, value: false }],
  },
  { key: 'paywall_theme', type: 'json', value: { color: 'blue' } },
];

async function putFile(command: 'offerings' | 'switches', app: TestApp, content: unknown) {
  const dir = await mkdtemp(join(tmpdir(), `${command}-`));
  const file = join(dir, `${command}.json`);
  await writeFile(file, JSON.stringify(content));
  return admin(command, 'put', '--app', app.appId, '--file', file, '--json');
}

async function segmentsPut(app: TestApp) {
  const dir = await mkdtemp(join(tmpdir(), 'segments-'));
  const file = join(dir, 'segments.json');
  await writeFile(
    file,
    JSON.stringify([
      { id: 'gold_members', name: 'Gold', conditions: [{ field: 'custom_properties.tier', op: 'eq', value: 'gold' }] },
    ]),
  );
  expect((await admin('segments', 'put', '--app', app.appId, '--file', file, '--json')).code).toBe(0);
}

const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>;

describe('offerings, placements and remote switches', () => {
  it('offerings put and switches put list every problem of a file and write nothing', async () => {
    const app = await createTestApp();
    await segmentsPut(app);
    const bad = await putFile('offerings', app, {
      current: 'missing',
      offerings: [
        {
          id: 'standard',
          packages: [
            { id: '$rc_monthly', products: { ios: 'no_such_product' } },
            { id: '$rc_annual', products: { web: 'pro_yearly' } },
            { id: 'empty', products: {} },
          ],
          metadata: { paywall: { api_key: 'abc' } },
        },
      ],
      placements: [
        { id: 'onboarding', rules: [{ audience: { segment: 'whales' }, offering: 'gold' }], default: 'standard' },
        { id: 'onboarding', rules: [{ audience: {}, offering: 'standard' }], default: 'standard' },
      ],
    });
    expect(bad.code).not.toBe(0);
    const error = json(bad.stdout).error;
    expect(error.code).toBe('INVALID_FILE');
    for (const problem of [
      '[current] offering missing is not in offerings',
      '[offerings.0.packages.0.products.ios] product no_such_product is not in the catalogue',
      '[offerings.0.packages.1.products.web] product pro_yearly is not sold on web',
      '[offerings.0.packages.2.products] names a product for at least one platform',
      '[offerings.0.metadata.paywall.api_key] "api_key" is named like a credential',
      '[placements.0.rules.0.offering] offering gold is not in offerings',
      '[placements.0.rules.0.audience.segment] segment whales is not defined',
      '[placements.1.id] duplicate placement id onboarding',
      '[placements.1.rules.0.audience] names a segment, a platform or both',
    ])
      expect(error.message).toContain(problem);

    const badSwitches = await putFile('switches', app, [
      { key: 'show_trial_banner', type: 'boolean', value: 'yes' },
      { key: 'show_trial_banner', type: 'number', value: 1, rules: [{ audience: { segment: 'whales' }, value: 'x' }] },
      { key: '9lives', type: 'string', value: 'a' },
      { key: 'stripe_secret', type: 'string', value: 'abc' },
      { key: 'theme', type: 'json', value: { colors: ['blue', 'whsec_abc'] } },
    ]);
    expect(badSwitches.code).not.toBe(0);
    const switchError = json(badSwitches.stdout).error;
    for (const problem of [
      "[0.value] must be a boolean, as the switch's type says",
      '[1.key] switch show_trial_banner is listed twice',
      "[1.rules.0.value] must be a number, as the switch's type says",
      '[1.rules.0.audience.segment] segment whales is not defined',
      '[2.key] must be a letter',
      '[3.value] "stripe_secret" is named like a credential: offerings and switches are readable by any sdk key holder',
      '[4.value.colors.1] the value of "colors" is a credential',
    ])
      expect(switchError.message).toContain(problem);

    // A launch reads the whole document: at most 64 KB of JSON.
    const huge = await putFile('switches', app, [{ key: 'copy', type: 'string', value: 'x'.repeat(70_000) }]);
    expect(huge.code).not.toBe(0);
    expect(json(huge.stdout).error.message).toMatch(/\[\] the switches take 700\d\d bytes of JSON, more than 65536/);

    // Nothing was written.
    const stored = await request('GET', OFFERINGS_PATH, { bearer: app.secretKey });
    expect(stored.status).toBe(200);
    expect(stored.body.data).toEqual({
      current_offering_id: null,
      offerings: [],
      placements: [],
      switches: [],
      paywalls: [],
      updated_at: null,
    });
  });

  it('stored with the CLI, read by both APIs, chosen by segment and platform, each app its own', async () => {
    const app = await createTestApp();
    await segmentsPut(app);
    const put = await putFile('offerings', app, OFFERINGS);
    expect(put.code, put.stderr).toBe(0);
    expect(json(put.stdout)).toEqual({
      app_id: app.appId,
      current: 'standard',
      offerings: ['standard', 'gold'],
      placements: ['onboarding', 'settings'],
    });
    const switches = await putFile('switches', app, SWITCHES);
    expect(json(switches.stdout)).toEqual({ app_id: app.appId, switches: ['show_trial_banner', 'paywall_theme'] });

    // The server API: as stored, with the defaults filled in.
    const stored = (await request('GET', OFFERINGS_PATH, { bearer: app.secretKey })).body.data;
    expect(stored.current_offering_id).toBe('standard');
    expect(stored.offerings[1]).toEqual({
      id: 'gold',
      description: '',
      metadata: {},
      packages: [{ id: '$rc_annual', products: { ios: 'pro_yearly' }, metadata: {} }],
    });
    expect(stored.switches[1]).toEqual({
      key: 'paywall_theme',
      type: 'json',
      description: '',
      value: { color: 'blue' },
      rules: [],
    });

    // A user becomes a gold member through the SDK's custom properties.
    const sdk = (path: string, user: string, platform = 'iOS') =>
      request('GET', path, { headers: mobileHeaders(app, user, { 'x-platform': platform }) });
    expect(
      (
        await request('POST', '/users/custom_properties/set', {
          headers: mobileHeaders(app, 'goldie'),
          body: { properties: { tier: 'gold' } },
        })
      ).status,
    ).toBe(200);
    const goldie = await sdk('/offerings', 'goldie');
    expect(goldie.status).toBe(200);
    expect(goldie.body.status).toBe('success');
    expect(goldie.body.data).toMatchObject({
      user_id: 'goldie',
      platform: 'ios',
      current_offering_id: 'standard',
      placements: {
        onboarding: {
          offering_id: 'gold',
          guide_page: null,
          chosen_by: { rule: 0, audience: { segment: 'gold_members' } },
        },
        settings: { offering_id: 'standard', guide_page: null, chosen_by: 'default' },
      },
      switches: {
        show_trial_banner: { value: true, chosen_by: 'default' },
        paywall_theme: { value: { color: 'blue' }, chosen_by: 'default' },
      },
    });
    expect(goldie.body.data.segments).toContain('gold_members');
    expect(goldie.body.data.offerings).toEqual(stored.offerings);

    // Android, on the V2 path: the platform rule of `settings` holds.
    const android = await sdk('/v2/offerings', 'newcomer', 'Android');
    expect(android.body.data.placements.settings).toEqual({
      offering_id: 'gold',
      guide_page: null,
      chosen_by: { rule: 0, audience: { platform: 'android' } },
    });

    // The server API for one customer, the platform as a query parameter.
    const viaServer = await request('GET', `${CUSTOMERS_BASE}/goldie/offerings?platform=ios`, {
      bearer: app.secretKey,
    });
    expect(viaServer.status).toBe(200);
    expect(viaServer.body.data).toEqual(goldie.body.data);
    const noPlatform = await request('GET', `${CUSTOMERS_BASE}/goldie/offerings`, { bearer: app.secretKey });
    expect(noPlatform.body.data.platform).toBeNull();
    expect(
      (await request('GET', `${CUSTOMERS_BASE}/goldie/offerings?platform=windows`, { bearer: app.secretKey })).status,
    ).toBe(400);

    // Another app sees none of it.
    const other = await createTestApp();
    expect((await request('GET', OFFERINGS_PATH, { bearer: other.secretKey })).body.data.offerings).toEqual([]);
    const otherUser = await request('GET', '/offerings', { headers: mobileHeaders(other, 'goldie') });
    expect(otherUser.body.data).toMatchObject({ current_offering_id: null, placements: {}, switches: {} });
  });
});
