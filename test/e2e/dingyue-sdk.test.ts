/**
 * The DingYue iOS SDK (github.com/DingyueIO/DingYue_iOS_SDK 0.3.16, commit ee4e11c) pointed at
 * this service: `basePath` = `<ApiUrl>/dingyue`, DINGYUE_APP_ID and DINGYUE_API_KEY the app's id and
 * sdk key. Every call is replayed as the SDK builds it and every answer decoded as its Codable
 * models decode it; paths are relative to the SDK's `Classes/`.
 *
 * - Headers: OpenAPIs/APIs/SessionsAPI.swift:137-145 (every builder alike) sets X-USER-ID, X-APP-ID,
 *   X-PLATFORM ("ios"), X-VERSION (API/DYMConstants.swift:28, "0.3.16") and X-API-KEY, nothing else;
 *   Content-Type application/json only with a body (OpenAPIs/JSONDataEncoding.swift:30-38). No
 *   User-Agent: the builders never put the one they are given (API/UserProperties.swift:77-79).
 * - Bodies: OpenAPIs/CodableHelper.swift:22-27, JSONEncoder with `.prettyPrinted` and without
 *   `.withoutEscapingSlashes`: `"key" : value`, two-space indents, every `/` written `\/`.
 * - X-USER-ID: FCUUID's uuidForDevice, a lowercase dashed UUID kept in the Keychain: one per device
 *   (API/UserProperties.swift:45-62), also the purchase's applicationUsername (API/DYMIAPManager.swift:148).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { readUserItems } from '../../lib/data/profiles.js';
import { DINGYUE_LAUNCH } from '../support/dingyue-requests.js';
import { createTestApp, PREMIUM_MONTHLY, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { admin } from '../support/processes.js';
import { mintReceipt } from '../support/receipts.js';

// What an operator changes is seen at the next launch, as with `npm start` (local/start.ts); the CLI
// (a child process) and the gateway share the bundles' folder.
vi.hoisted(() => {
  process.env.OFFERINGS_CACHE_TTL_SECONDS = '0';
  const { mkdtempSync } = require('node:fs') as typeof import('node:fs');
  const { join: joinPath } = require('node:path') as typeof import('node:path');
  const { tmpdir: tmp } = require('node:os') as typeof import('node:os');
  process.env.PAYWALLS_DIR = mkdtempSync(joinPath(tmp(), 'dingyue-paywalls-'));
});

const { send } = useGateway({ paywalls: true });

/** JSONEncoder's `.prettyPrinted` output as Foundation writes it. */
function swiftPrettyJson(value: unknown): string {
  return JSON.stringify(value, undefined, 2)
    .replace(/^(\s*"(?:[^"\\]|\\.)*"): /gm, '$1 : ')
    .replaceAll('/', '\\/');
}

interface Device {
  userId: string;
}
const newDevice = (): Device => ({ userId: randomUUID() });

/** One call as the SDK's request builder makes it. */
async function sdk(app: TestApp, device: Device, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  const text = body === undefined ? undefined : swiftPrettyJson(body);
  const res = await send(method, `/dingyue${path}`, {
    headers: {
      'X-USER-ID': device.userId,
      'X-APP-ID': app.appId,
      'X-PLATFORM': 'ios',
      'X-VERSION': '0.3.16',
      'X-API-KEY': app.sdkKey,
      ...(text === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(text === undefined ? {} : { body: text }),
  });
  // OpenAPIs/URLSessionImplementations.swift:290-293: a status outside 200..<300 is never parsed.
  return { status: res.status, json: res.status >= 200 && res.status < 300 ? JSON.parse(res.text) : undefined };
}

// --- The SDK's Codable models (OpenAPIs/Models/*.swift): required keys, types, the status enum. ---

type Json = Record<string, unknown>;
class DecodingError extends Error {}
function field<T>(json: Json, key: string, type: 'string' | 'number' | 'boolean' | 'object', optional: boolean): T {
  const value = json[key];
  if (value === undefined || value === null) {
    if (optional) return undefined as T;
    throw new DecodingError(`keyNotFound ${key}`);
  }
  if (type === 'object' ? typeof value !== 'object' : typeof value !== type)
    throw new DecodingError(`typeMismatch ${key}`);
  return value as T;
}
/** Every result model's `status`: a plain String enum of "ok" and "fail" (SimpleStatusResult.swift:15-18). */
function status(json: Json): 'ok' | 'fail' {
  const value = field<string>(json, 'status', 'string', false);
  if (value !== 'ok' && value !== 'fail') throw new DecodingError(`dataCorrupted status ${value}`);
  field<string>(json, 'errmsg', 'string', true);
  return value;
}
/** SubscribedObject.swift: platformProductId and originalTransactionId required, expiresAt an Int64. */
function subscribedObject(json: Json) {
  const expiresAt = field<number>(json, 'expiresAt', 'number', true);
  if (expiresAt !== undefined && !Number.isInteger(expiresAt)) throw new DecodingError('typeMismatch expiresAt');
  return {
    platformProductId: field<string>(json, 'platformProductId', 'string', false),
    originalTransactionId: field<string>(json, 'originalTransactionId', 'string', false),
    expiresAt,
  };
}
const list = (json: Json, key: string) => {
  const value = json[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new DecodingError(`typeMismatch ${key}`);
  return value as Json[];
};
/** Subscription.swift: type, name, platformProductId, price (a String), currencyCode, countryCode required. */
function subscription(json: Json) {
  for (const key of ['type', 'name', 'platformProductId', 'price', 'currencyCode', 'countryCode'])
    field<string>(json, key, 'string', false);
  for (const key of ['appleSubscriptionGroupId', 'subscriptionDescription', 'period', 'icon'])
    field<string>(json, key, 'string', true);
  return json as { name: string; platformProductId: string; price: string; period?: string; currencyCode: string };
}
/**
 * Paywall.swift (DYMGuideObject.swift adds purchaseSwitch: Bool, swiperSize: Int): version a Double,
 * subscriptions required, each PaywallSubscriptions' `subscription` force-unwrapped by the SDK
 * (API/ApiManager.swift:84-87, API/DYMGuideController.swift:270-273), downloadUrl given to
 * `URL(string:)!` (API/ApiManager.swift:72, 121).
 */
function paywallModel(json: Json, guide: boolean) {
  const subscriptions = list(json, 'subscriptions');
  if (!subscriptions) throw new DecodingError('keyNotFound subscriptions');
  const downloadUrl = field<string>(json, 'downloadUrl', 'string', false);
  if (!URL.canParse(downloadUrl)) throw new DecodingError('URL(string:) is nil: downloadUrl');
  const model = {
    name: field<string>(json, 'name', 'string', false),
    version: field<number>(json, 'version', 'number', false),
    downloadUrl,
    previewUrl: field<string>(json, 'previewUrl', 'string', true),
    customize: field<boolean>(json, 'customize', 'boolean', false),
    subscriptions: subscriptions.map((entry) => ({
      subscriptionId: field<string>(entry, 'subscriptionId', 'string', true),
      subscription: subscription(field<Json>(entry, 'subscription', 'object', false)),
    })),
  };
  if (!guide) return model;
  const swiperSize = field<number>(json, 'swiperSize', 'number', false);
  if (!Number.isInteger(swiperSize)) throw new DecodingError('typeMismatch swiperSize');
  return { ...model, purchaseSwitch: field<boolean>(json, 'purchaseSwitch', 'boolean', false), swiperSize };
}
const optionalModel = (json: Json, key: string, guide: boolean) => {
  const value = field<Json>(json, key, 'object', true);
  return value && paywallModel(value, guide);
};
/** The SDK's identity of a downloaded bundle: `paywallId + "/" + String(version)` (API/ApiManager.swift:68). */
const swiftIdentity = (id: string, version: number) => `${id}/${Number.isInteger(version) ? `${version}.0` : version}`;

const decode = {
  simpleStatus: (json: Json) => ({ status: status(json) }),
  /** ReportSessionResult.swift; SwitchItem.swift {variableName, variableValue: Bool}; GlobalSwitch.swift. */
  reportSession: (json: Json) => ({
    status: status(json),
    paywall: optionalModel(json, 'paywall', false),
    paywallId: field<string>(json, 'paywallId', 'string', true),
    guidePage: optionalModel(json, 'guidePage', true),
    guidePageId: field<string>(json, 'guidePageId', 'string', true),
    switchItems: list(json, 'switchItems')?.map((item) => ({
      variableName: field<string>(item, 'variableName', 'string', false),
      variableValue: field<boolean>(item, 'variableValue', 'boolean', false),
    })),
    globalSwitchItems: list(json, 'globalSwitchItems')?.map((item) => ({
      showName: field<string>(item, 'showName', 'string', false),
      varName: field<string>(item, 'varName', 'string', false),
      value: field<boolean>(item, 'value', 'boolean', false),
    })),
    subscribedProducts: list(json, 'subscribedProducts')?.map(subscribedObject),
  }),
  /** FirstReceiptVerifyMobileResponse.swift: `receipt` one SubscribedObject. */
  firstReceipt: (json: Json) => {
    const receipt = field<Json>(json, 'receipt', 'object', true);
    return {
      status: status(json),
      errmsg: json.errmsg as string | undefined,
      receipt: receipt && subscribedObject(receipt),
    };
  },
  /** ReceiptVerifyMobileResponse.swift: `receipts` an array. */
  recover: (json: Json) => ({
    status: status(json),
    errmsg: json.errmsg as string | undefined,
    receipts: list(json, 'receipts')?.map(subscribedObject),
  }),
  /** SegmentInfoResult.swift:48-54: its own decoder, segmentList absent is []. */
  segmentInfo: (json: Json) => {
    const segmentList = list(json, 'segmentList') ?? [];
    if (!segmentList.every((s) => typeof s === 'string')) throw new DecodingError('typeMismatch segmentList');
    return { status: status(json), segmentList: segmentList as unknown as string[] };
  },
};

const LAUNCH = DINGYUE_LAUNCH;

async function switchesPut(app: TestApp, switches: unknown) {
  const dir = await mkdtemp(join(tmpdir(), 'switches-'));
  const file = join(dir, 'switches.json');
  await writeFile(file, JSON.stringify(switches));
  expect((await admin('switches', 'put', '--app', app.appId, '--file', file, '--json')).code).toBe(0);
}

async function jsonFile(name: string, content: unknown): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), `${name}-`)), `${name}.json`);
  await writeFile(file, JSON.stringify(content));
  return file;
}

async function paywallUpload(app: TestApp, id: string, files: Record<string, string>): Promise<void> {
  const file = join(await mkdtemp(join(tmpdir(), 'bundle-')), `${id}.zip`);
  await writeFile(
    file,
    zipSync(Object.fromEntries(Object.entries(files).map(([name, body]) => [name, strToU8(body)]))),
  );
  const result = await admin('paywalls', 'upload', '--app', app.appId, '--id', id, '--file', file, '--json');
  expect(result.code, result.stdout).toBe(0);
}

/** What the SDK's downloadTask and SSZipArchive do with a downloadUrl (API/ApiManager.swift:245-262): the files unzipped. */
async function downloadBundle(url: string): Promise<Record<string, string>> {
  const res = await send('GET', new URL(url).pathname);
  expect(res.status).toBe(200);
  return Object.fromEntries(Object.entries(unzipSync(res.bytes)).map(([name, data]) => [name, strFromU8(data)]));
}

describe('the DingYue SDK against /dingyue', () => {
  it('writes its bodies as Foundation does: pretty-printed, " : ", slashes escaped', () => {
    expect(swiftPrettyJson({ a: 'x/y', b: [1] })).toBe('{\n  "a" : "x\\/y",\n  "b" : [\n    1\n  ]\n}');
  });

  it("every call of the SDK succeeds and decodes, and each fail is the SDK's fail", async () => {
    const app = await createTestApp();
    const device = newDevice();
    const launch = decode.reportSession((await sdk(app, device, 'POST', '/sessions/report', LAUNCH)).json);
    expect(launch).toEqual({
      status: 'ok',
      paywall: undefined,
      paywallId: undefined,
      guidePage: undefined,
      guidePageId: undefined,
      switchItems: [],
      globalSwitchItems: [],
      subscribedProducts: [],
    });

    // OpenAPIs/APIs/SessionsAPI.swift:61-82, one event per request (API/DYMEventManager.swift:13-24).
    const event = { name: 'ENTER_PAYWALL', extra: '2.0', user: 'paywall-7306', sessionId: randomUUID() };
    for (const [method, path, body] of [
      ['POST', '/users/report/events', { events: [event] }],
      ['POST', '/report/idfa', '6D92078A-8246-4BA4-AE5B-76104861E7DC'],
      ['POST', '/report/device_token', 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90'],
      [
        'PUT',
        '/users/attribute/update',
        [{ key: 'uniqueUser.extraData.userPurchasedSources', value: '订阅内购页:Summer/7306/2.0', type: 'string' }],
      ],
      ['POST', '/users/custom_properties/set', { plan_tier: 'gold', level: 3 }],
      ['POST', '/users/custom_properties/set', { customProperties: [{ key: 'test0', value: '123131313' }] }],
      ['POST', '/conversion/report', { conversionValue: 1, coarseValue: 'LOW' }],
      ['POST', '/attribution/report', { appsFlyerId: '1690000000000-1234567' }],
      [
        'POST',
        '/searchads/report',
        {
          attribution: {
            'Version3.1': { 'iad-attribution': 'true', 'iad-campaign-id': '542370539' },
            rawData: { attribution: true },
          },
        },
      ],
      ['POST', '/report/global_switch', { showName: 'New onboarding', varName: 'new_onboarding', value: true }],
    ] as const) {
      const res = await sdk(app, device, method, path, body);
      expect({ path, status: res.status, result: decode.simpleStatus(res.json) }).toEqual({
        path,
        status: 200,
        result: { status: 'ok' },
      });
    }
    const segments = decode.segmentInfo((await sdk(app, device, 'GET', '/segment/info')).json);
    expect(segments.status).toBe('ok');
    expect(segments.segmentList).toEqual(expect.arrayContaining(['new_user', 'active_7d', 'never_subscribed']));

    // What the calls recorded, as the operator reads it.
    const { profile } = await readUserItems(app.appId, device.userId);
    expect(profile?.custom_properties).toMatchObject({
      plan_tier: 'gold',
      level: 3,
      test0: '123131313',
      userPurchasedSources: '订阅内购页:Summer/7306/2.0',
    });
    expect(profile?.device).toMatchObject({ os_version: 'iOS 17.5', model: 'iPhone15,2', language: 'en-US' });
    expect(profile?.total_sessions).toBe(1);

    // A receipt the store does not vouch for: the SDK's fail (ReceiptAPI.swift:36-50 passes errmsg to the app).
    const bad = decode.firstReceipt(
      (
        await sdk(app, device, 'POST', '/receipt/verify/first', {
          appleReceipt: 'bm90IGEgcmVjZWlwdA==',
          platformProductId: 'premium_monthly',
          price: '9.99',
          currencyCode: 'USD',
          countryCode: 'US',
        })
      ).json,
    );
    expect(bad.status).toBe('fail');
    expect(bad.errmsg).toBeTruthy();
    // What the profile would keep is bounded and storable: refused as the SDK's fail, nothing kept.
    for (const deviceInfo of [{ big: 'x'.repeat(17 * 1024) }, { '': 'empty key' }]) {
      const refused = await sdk(app, device, 'POST', '/sessions/report', { ...LAUNCH, deviceInfo });
      expect({ status: refused.status, body: refused.json }).toEqual({
        status: 200,
        body: { status: 'fail', errmsg: expect.any(String), code: 'INVALID_PARAMETER' },
      });
    }
    // A wrong sdk key is no answer to decode: 401, which the SDK reports as a failed call.
    expect((await sdk({ ...app, sdkKey: 'pk_wrong' }, device, 'POST', '/sessions/report', LAUNCH)).status).toBe(401);
  });

  it('story: launch with a paywall and a guide page, events, purchase, restore on a second device, operator changes', async () => {
    const app = await createTestApp();
    const phone = newDevice();
    await switchesPut(app, [{ key: 'show_trial_banner', type: 'boolean', description: 'Trial banner', value: true }]);
    // The operator's paywall and onboarding guide, and the offering they sell.
    await paywallUpload(app, 'spring', { 'index.html': '<h1>Spring sale</h1>', 'config.js': 'window.products = []' });
    await paywallUpload(app, 'welcome', { 'index.html': '<h1>Welcome</h1>', 'step2.html': '<h1>Sync</h1>' });
    const offerings = {
      current: 'standard',
      offerings: [
        {
          id: 'standard',
          paywall: 'spring',
          packages: [
            { id: '$rc_monthly', products: { ios: 'premium_monthly', android: 'premium_monthly' } },
            { id: 'web', products: { web: 'premium_monthly' } },
          ],
        },
      ],
      placements: [{ id: 'onboarding', default: 'standard', guide_page: { id: 'welcome', pages: 2, purchase: true } }],
    };
    const put = await admin(
      'offerings',
      'put',
      '--app',
      app.appId,
      '--file',
      await jsonFile('offerings', offerings),
      '--json',
    );
    expect(put.code, put.stdout).toBe(0);

    const first = decode.reportSession((await sdk(app, phone, 'POST', '/sessions/report', LAUNCH)).json);
    expect(first.switchItems).toEqual([{ variableName: 'show_trial_banner', variableValue: true }]);
    expect(first.globalSwitchItems).toEqual([{ showName: 'Trial banner', varName: 'show_trial_banner', value: true }]);
    const monthly = {
      type: 'SUBSCRIPTION',
      name: 'Premium',
      platformProductId: 'premium_monthly',
      subscriptionDescription: 'Every feature, billed monthly',
      period: 'MONTH',
      price: '9.99',
      currencyCode: 'USD',
      countryCode: 'US',
    };
    expect(first.paywallId).toBe('spring');
    expect(first.paywall).toMatchObject({
      name: 'spring',
      version: 1,
      customize: true,
      subscriptions: [{ subscriptionId: '$rc_monthly', subscription: monthly }],
    });
    expect(swiftIdentity(first.paywallId!, first.paywall!.version)).toBe('spring/1.0');
    expect(first.guidePageId).toBe('welcome');
    expect(first.guidePage).toMatchObject({ version: 1, purchaseSwitch: true, swiperSize: 2 });
    // The app downloads both from the URLs answered and opens index.html at the unzipped root.
    expect(await downloadBundle(first.paywall!.downloadUrl)).toEqual({
      'index.html': '<h1>Spring sale</h1>',
      'config.js': 'window.products = []',
    });
    expect(Object.keys(await downloadBundle(first.guidePage!.downloadUrl)).sort()).toEqual([
      'index.html',
      'step2.html',
    ]);

    expect(
      decode.simpleStatus(
        (
          await sdk(app, phone, 'POST', '/users/report/events', {
            events: [{ name: 'ENTER_PAYWALL', extra: '2.0', user: 'p1', sessionId: randomUUID() }],
          })
        ).json,
      ).status,
    ).toBe('ok');

    // The purchase is made for the device id (applicationUsername, API/DYMIAPManager.swift:148).
    const { receipt_data } = await mintReceipt(app, { product: PREMIUM_MONTHLY, appAccountToken: phone.userId });
    const bought = decode.firstReceipt(
      (
        await sdk(app, phone, 'POST', '/receipt/verify/first', {
          appleReceipt: receipt_data,
          platformProductId: 'premium_monthly',
          price: '9.99',
          currencyCode: 'USD',
          countryCode: 'US',
        })
      ).json,
    );
    expect(bought.status).toBe('ok');
    expect(bought.receipt!.platformProductId).toBe('premium_monthly');
    expect(bought.receipt!.expiresAt).toBeGreaterThan(Date.now());
    const afterPurchase = decode.reportSession((await sdk(app, phone, 'POST', '/sessions/report', LAUNCH)).json);
    expect(afterPurchase.subscribedProducts).toEqual([bought.receipt]);

    // A second device has another X-USER-ID: with no restore policy set, the restore moves the purchase there.
    const tablet = newDevice();
    const restored = decode.recover(
      (await sdk(app, tablet, 'POST', '/receipt/verify/recover', { appleReceipt: receipt_data })).json,
    );
    expect(restored).toMatchObject({ status: 'ok', receipts: [{ platformProductId: 'premium_monthly' }] });
    expect(
      decode.reportSession((await sdk(app, tablet, 'POST', '/sessions/report', LAUNCH)).json).subscribedProducts,
    ).toHaveLength(1);
    expect(
      decode.reportSession((await sdk(app, phone, 'POST', '/sessions/report', LAUNCH)).json).subscribedProducts,
    ).toEqual([]);

    // An app that chose `block` keeps a purchase with its first device: the SDK's fail, with why.
    expect((await admin('apps', 'update', '--app', app.appId, '--restore-policy', 'block', '--json')).code).toBe(0);
    const blocked = decode.recover(
      (await sdk(app, phone, 'POST', '/receipt/verify/recover', { appleReceipt: receipt_data })).json,
    );
    expect(blocked.status).toBe('fail');
    expect(blocked.errmsg).toBeTruthy();

    // The operator turns the banner off, raises the price and uploads a new paywall: the next launch sees all three.
    await switchesPut(app, [{ key: 'show_trial_banner', type: 'boolean', description: 'Trial banner', value: false }]);
    const raised = { ...PREMIUM_MONTHLY, price: 12.99 };
    expect(
      (await admin('products', 'put', '--app', app.appId, '--file', await jsonFile('products', [raised]), '--json'))
        .code,
    ).toBe(0);
    await paywallUpload(app, 'spring', { 'index.html': '<h1>Summer sale</h1>', 'config.js': '' });
    const later = decode.reportSession((await sdk(app, phone, 'POST', '/sessions/report', LAUNCH)).json);
    expect(later.switchItems).toEqual([{ variableName: 'show_trial_banner', variableValue: false }]);
    expect(later.paywall!.subscriptions[0]!.subscription.price).toBe('12.99');
    // A new identity, so the SDK downloads it (API/ApiManager.swift:71-72), from a new URL.
    expect(swiftIdentity(later.paywallId!, later.paywall!.version)).toBe('spring/2.0');
    expect(later.paywall!.downloadUrl).not.toBe(first.paywall!.downloadUrl);
    expect((await downloadBundle(later.paywall!.downloadUrl))['index.html']).toBe('<h1>Summer sale</h1>');
  });
});
