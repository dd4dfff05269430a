/**
 * Google's OIDC keys kept in the table: what a process that fetched them writes, what a cold
 * process takes from the item read with the app's settings, and when it asks Google all the same.
 * Each process is lib/ evaluated anew in this one (a key cache of its own, empty, as in a cold
 * process) with the data client of the same load, against DynamoDB Local and the Google stand-in
 * over HTTP.
 */
import { generateKeyPairSync } from 'node:crypto';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { saveGoogleOidcKeys, storedGoogleKeysOf } from '../../lib/data/google-oidc-keys.js';
import { throttled } from '../support/ddb-intercept.js';
import { createTestApp } from '../support/fixtures.js';
import {
  PUSH_SERVICE_ACCOUNT,
  pushBody,
  type StandIn,
  startGooglePlayStandIn,
} from '../support/google-play-standin.js';

const AUDIENCE = 'https://api.example.com/notifications/google-play/app_keys';
const ISSUED = 1_795_000_000;
const NOW_MS = ISSUED * 1000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Modules as another process loads them, cold: evaluated anew, with caches of their own. Another
 * JWKS URL would not do for an empty key cache: the table keeps the keys by that URL too.
 */
async function inNewProcess<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  return load();
}

const cold = () =>
  inNewProcess(async () => ({
    verifier: await import('../../lib/stores/google-play-notifications.js'),
    client: await import('../../lib/data/client.js'),
    logger: (await import('../../lib/core/logger.js')).logger,
  }));

describe("Google's OIDC keys kept in the table", () => {
  let standIn: StandIn;
  beforeAll(async () => {
    standIn = await startGooglePlayStandIn('com.example.keys');
  });
  afterAll(async () => {
    await standIn?.close();
  });
  const key = () => keys.googleOidcKeys(standIn.jwksUrl);
  const kept = async () =>
    (await ddb.send(new GetCommand({ TableName: tableName, Key: key(), ConsistentRead: true }))).Item;
  beforeEach(async () => {
    await ddb.send(new DeleteCommand({ TableName: tableName, Key: key() }));
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A push token checked by a cold process at `now`, given what the table held (undefined: nothing). */
  async function verifyCold(now: number, stored?: Record<string, unknown>) {
    const { verifier } = await cold();
    verifier.rememberGoogleOidcKeys(standIn.jwksUrl, storedGoogleKeysOf(stored));
    const before = standIn.jwksRequests;
    const claims = await verifier.verifyPubSubPushToken(
      `Bearer ${standIn.pushToken({ audience: AUDIENCE, issuedAt: Math.floor(now / 1000) })}`,
      { audience: AUDIENCE, serviceAccountEmail: PUSH_SERVICE_ACCOUNT },
      now,
      standIn.jwksUrl,
    );
    return { fetched: standIn.jwksRequests - before, aud: claims.aud };
  }

  it('a process that fetches the keys keeps the usable ones, with the time of the fetch', async () => {
    expect(await verifyCold(NOW_MS)).toEqual({ fetched: 1, aud: AUDIENCE });
    const item = await kept();
    expect(item).toMatchObject({ type: 'google_oidc_keys', fetched_at: NOW_MS });
    expect((item!.keys as { kid: string; kty: string }[]).map(({ kid, kty }) => [kid, kty])).toEqual([
      [standIn.oidcKid, 'RSA'],
    ]);
  });

  it('a cold process takes the kept keys and asks Google nothing while they are under an hour old', async () => {
    await verifyCold(NOW_MS);
    const item = await kept();
    expect(await verifyCold(NOW_MS + 30 * MINUTE, item)).toEqual({ fetched: 0, aud: AUDIENCE });
    expect(await verifyCold(NOW_MS + HOUR - 1, item)).toEqual({ fetched: 0, aud: AUDIENCE });
  });

  it('kept keys an hour old are fetched again, and the newer set is kept', async () => {
    await verifyCold(NOW_MS);
    const item = await kept();
    expect(await verifyCold(NOW_MS + HOUR, item)).toEqual({ fetched: 1, aud: AUDIENCE });
    expect((await kept())!.fetched_at).toBe(NOW_MS + HOUR);
  });

  it('a token signed with a key the kept set lacks fetches the set again (Google rotated its keys)', async () => {
    await verifyCold(NOW_MS);
    const item = await kept();
    const rotated = standIn.newOidcKey();
    const { verifier } = await cold();
    verifier.rememberGoogleOidcKeys(standIn.jwksUrl, storedGoogleKeysOf(item));
    const before = standIn.jwksRequests;
    await verifier.verifyPubSubPushToken(
      `Bearer ${standIn.pushToken({ audience: AUDIENCE, issuedAt: ISSUED, kid: rotated })}`,
      { audience: AUDIENCE },
      NOW_MS + 2 * MINUTE,
      standIn.jwksUrl,
    );
    expect(standIn.jwksRequests - before).toBe(1);
    expect(((await kept())!.keys as { kid: string }[]).map(({ kid }) => kid).sort()).toEqual(
      [standIn.oidcKid, rotated].sort(),
    );
  });

  it('an item holding no usable key, or no time, is no key set: the process asks Google', async () => {
    for (const stored of [
      { keys: [], fetched_at: NOW_MS },
      { keys: [{ kty: 'EC', kid: 'a', crv: 'P-256', x: 'x', y: 'y' }], fetched_at: NOW_MS },
      { keys: 'not a list', fetched_at: NOW_MS },
      { keys: [{ kty: 'RSA', kid: standIn.oidcKid }], fetched_at: `${NOW_MS}` },
    ]) {
      expect(await verifyCold(NOW_MS, stored)).toEqual({ fetched: 1, aud: AUDIENCE });
    }
  });

  it('a process keeps the set it fetched itself when the table holds an older one', async () => {
    const { verifier } = await cold();
    const token = `Bearer ${standIn.pushToken({ audience: AUDIENCE, issuedAt: ISSUED })}`;
    await verifier.verifyPubSubPushToken(token, { audience: AUDIENCE }, NOW_MS, standIn.jwksUrl);
    // An older set naming no key of Google's now: taking it would refuse the next token.
    verifier.rememberGoogleOidcKeys(standIn.jwksUrl, { keys: [], fetched_at: NOW_MS - MINUTE });
    verifier.rememberGoogleOidcKeys(standIn.jwksUrl, {
      keys: [{ ...(await kept())!.keys[0], kid: 'old' }],
      fetched_at: NOW_MS - MINUTE,
    });
    const before = standIn.jwksRequests;
    await verifier.verifyPubSubPushToken(token, { audience: AUDIENCE }, NOW_MS + MINUTE, standIn.jwksUrl);
    expect(standIn.jwksRequests - before).toBe(0);
  });

  it('an older set never replaces a newer one in the table (two processes fetching at once)', async () => {
    const set = (fetched_at: number) => ({ keys: [{ kty: 'RSA', kid: `k${fetched_at}` }], fetched_at });
    await saveGoogleOidcKeys(standIn.jwksUrl, set(NOW_MS));
    await saveGoogleOidcKeys(standIn.jwksUrl, set(NOW_MS - 1));
    expect(await kept()).toMatchObject(set(NOW_MS));
    await saveGoogleOidcKeys(standIn.jwksUrl, set(NOW_MS + 1));
    expect(await kept()).toMatchObject(set(NOW_MS + 1));
  });

  it('a process keeps its own set over a kept one of the same time', async () => {
    const { verifier } = await cold();
    const token = `Bearer ${standIn.pushToken({ audience: AUDIENCE, issuedAt: ISSUED })}`;
    await verifier.verifyPubSubPushToken(token, { audience: AUDIENCE }, NOW_MS, standIn.jwksUrl);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    verifier.rememberGoogleOidcKeys(standIn.jwksUrl, { keys: [{ ...other, kid: 'other' }], fetched_at: NOW_MS });
    const before = standIn.jwksRequests;
    const claims = await verifier.verifyPubSubPushToken(
      token,
      { audience: AUDIENCE },
      NOW_MS + 30_000,
      standIn.jwksUrl,
    );
    expect({ aud: claims.aud, fetched: standIn.jwksRequests - before }).toEqual({ aud: AUDIENCE, fetched: 0 });
  });

  it('a kid the set lacks is fetched again a minute after the last fetch, not a millisecond sooner', async () => {
    const { verifier } = await cold();
    const known = `Bearer ${standIn.pushToken({ audience: AUDIENCE, issuedAt: ISSUED })}`;
    await verifier.verifyPubSubPushToken(known, { audience: AUDIENCE }, NOW_MS, standIn.jwksUrl);
    const rotated = standIn.newOidcKey();
    const token = `Bearer ${standIn.pushToken({ audience: AUDIENCE, issuedAt: ISSUED, kid: rotated })}`;
    const at = async (now: number) => {
      const before = standIn.jwksRequests;
      const outcome = await verifier.verifyPubSubPushToken(token, { audience: AUDIENCE }, now, standIn.jwksUrl).then(
        () => 'verified',
        (error: Error) => error.message,
      );
      return { outcome, fetched: standIn.jwksRequests - before };
    };
    expect(await at(NOW_MS + MINUTE - 1)).toEqual({
      outcome: `the push token is signed with a key Google does not publish (kid ${rotated})`,
      fetched: 0,
    });
    expect(await at(NOW_MS + MINUTE)).toEqual({ outcome: 'verified', fetched: 1 });
  });

  it('a push is not refused because its keys could not be kept (DynamoDB refused the write): a warning says so', async () => {
    const { verifier, client, logger } = await cold();
    logger.setLogLevel('WARN');
    const warnings: Record<string, unknown>[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      for (const line of String(chunk).split('\n')) if (line.startsWith('{')) warnings.push(JSON.parse(line));
      return true;
    });
    const refusedWrites: string[] = [];
    client.ddb.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand') {
          refusedWrites.push(context.commandName);
          throw throttled();
        }
        return next(args);
      },
      { step: 'initialize', name: 'refuseWrites' },
    );
    const claims = await verifier
      .verifyPubSubPushToken(
        `Bearer ${standIn.pushToken({ audience: AUDIENCE, issuedAt: ISSUED })}`,
        { audience: AUDIENCE },
        NOW_MS,
        standIn.jwksUrl,
      )
      .finally(() => client.ddb.middlewareStack.remove('refuseWrites'));
    expect(claims.aud).toBe(AUDIENCE);
    expect(refusedWrites).toEqual(['PutItemCommand']);
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: "Google's OIDC keys could not be kept in the table",
        error: 'throughput exceeded',
      }),
    ]);
    expect(await kept()).toBeUndefined();
  });

  it("a cold notification function reads the kept keys with the app's settings (and the push's record), in one request, and asks Google nothing", async () => {
    // Configuration is read when lib/ loads: the new process's load below reads Google's URL from here.
    process.env.GOOGLE_OIDC_JWKS_URL = standIn.jwksUrl;
    const app = await createTestApp([]);
    const { putStoreSettings } = await import('../../lib/data/store-settings.js');
    await putStoreSettings(app.appId, 'google_play', {
      package_name: 'com.example.keys',
      service_account: standIn.serviceAccount,
      push_audience: AUDIENCE,
      push_service_account: PUSH_SERVICE_ACCOUNT,
    });
    const body = pushBody(
      {
        version: '1.0',
        packageName: 'com.example.keys',
        eventTimeMillis: String(Date.now()),
        testNotification: { version: '1.0' },
      },
      `keys-${Date.now()}`,
    );
    const receive = async () => {
      const { service, client } = await inNewProcess(async () => ({
        service: await import('../../lib/services/store-notifications.js'),
        client: await import('../../lib/data/client.js'),
      }));
      const sent: { command: string; keys: string[] }[] = [];
      client.ddb.middlewareStack.add(
        (next, context) => async (args) => {
          const input = args.input as { RequestItems?: Record<string, { Keys: { pk: string }[] }> };
          const named = Object.values(input.RequestItems ?? {}).flatMap(({ Keys }) =>
            Keys.map(({ pk }) => pk.split('#')[0]!),
          );
          sent.push({ command: context.commandName!, keys: named });
          return next(args);
        },
        { step: 'initialize', name: 'record' },
      );
      const before = standIn.jwksRequests;
      const { type } = await service.receiveGooglePlayNotification(
        app.appId,
        { ...body, message: { ...(body.message as object), messageId: `${Date.now()}-${Math.random()}` } },
        `Bearer ${standIn.pushToken({ audience: AUDIENCE })}`,
      );
      return { type, fetched: standIn.jwksRequests - before, first: sent[0] };
    };
    // The first cold process asks Google and keeps the keys; the next one finds them.
    expect(await receive()).toMatchObject({ type: 'TEST_NOTIFICATION', fetched: 1 });
    expect(await receive()).toEqual({
      type: 'TEST_NOTIFICATION',
      fetched: 0,
      first: { command: 'BatchGetItemCommand', keys: ['APP', 'APP', 'GOOGLE_KEYS', 'NOTIFICATION'] },
    });
  });
});

describe('what is not genuine is refused before it costs a consistent read or a fetch each', () => {
  let standIn: StandIn;
  beforeAll(async () => {
    standIn = await startGooglePlayStandIn('com.example.forged');
  });
  afterAll(async () => {
    await standIn?.close();
  });
  beforeEach(async () => {
    await ddb.send(new DeleteCommand({ TableName: tableName, Key: keys.googleOidcKeys(standIn.jwksUrl) }));
  });

  const attempt = (promise: Promise<unknown>) =>
    promise.then(
      () => 'verified',
      (error: { code?: string; message: string }) => `${error.code}: ${error.message}`,
    );

  it('a failed fetch of the keys is not repeated for 30 s, by this process or another (through the table)', async () => {
    const token = `Bearer ${standIn.pushToken({ audience: AUDIENCE, issuedAt: ISSUED })}`;
    const at = async (verifier: Awaited<ReturnType<typeof cold>>['verifier'], now: number) => {
      const before = standIn.jwksRequests;
      const outcome = await attempt(
        verifier.verifyPubSubPushToken(token, { audience: AUDIENCE }, now, standIn.jwksUrl),
      );
      return { outcome, fetched: standIn.jwksRequests - before };
    };
    const { verifier } = await cold();
    standIn.failNext('/oauth2/v3/certs/', 503);
    expect(await at(verifier, NOW_MS)).toEqual({
      outcome: "VERIFICATION_FAILED: Google's OIDC keys could not be read (HTTP 503); retry",
      fetched: 0,
    });
    expect(await at(verifier, NOW_MS + 1000)).toEqual({
      outcome: "VERIFICATION_FAILED: Google's OIDC keys could not be read moments ago; retry in 29 s",
      fetched: 0,
    });
    // Another process, cold, learns of the failure from the item it reads with the app's settings.
    const other = (await cold()).verifier;
    const { Item } = await ddb.send(
      new GetCommand({ TableName: tableName, Key: keys.googleOidcKeys(standIn.jwksUrl), ConsistentRead: true }),
    );
    other.rememberGoogleOidcKeys(standIn.jwksUrl, storedGoogleKeysOf(Item));
    expect((await at(other, NOW_MS + 29_999)).fetched).toBe(0);
    expect(await at(other, NOW_MS + 30_000)).toEqual({ outcome: 'verified', fetched: 1 });
    expect(await at(verifier, NOW_MS + 30_000)).toEqual({ outcome: 'verified', fetched: 1 });
  });

  it('a forged push costs a warm function no DynamoDB request, and a cold one no strongly consistent read', async () => {
    process.env.GOOGLE_OIDC_JWKS_URL = standIn.jwksUrl;
    const app = await createTestApp([]);
    const { putStoreSettings } = await import('../../lib/data/store-settings.js');
    await putStoreSettings(app.appId, 'google_play', {
      package_name: 'com.example.forged',
      service_account: standIn.serviceAccount,
      push_audience: AUDIENCE,
      push_service_account: PUSH_SERVICE_ACCOUNT,
    });
    const body = (id: string) =>
      pushBody(
        {
          version: '1.0',
          packageName: 'com.example.forged',
          eventTimeMillis: String(Date.now()),
          testNotification: { version: '1.0' },
        },
        id,
      );
    const process_ = async () => {
      const loaded = await inNewProcess(async () => ({
        service: await import('../../lib/services/store-notifications.js'),
        client: await import('../../lib/data/client.js'),
      }));
      const sent: { command: string; consistent: boolean }[] = [];
      loaded.client.ddb.middlewareStack.add(
        (next, context) => async (args) => {
          const input = args.input as {
            ConsistentRead?: boolean;
            RequestItems?: Record<string, { ConsistentRead?: boolean }>;
          };
          const consistent =
            input.ConsistentRead === true ||
            Object.values(input.RequestItems ?? {}).some((request) => request.ConsistentRead === true);
          sent.push({ command: context.commandName!, consistent });
          return next(args);
        },
        { step: 'initialize', name: 'record' },
      );
      const receive = (authorization: string) => {
        sent.length = 0;
        return attempt(
          loaded.service.receiveGooglePlayNotification(app.appId, body(`forged-${Math.random()}`), authorization),
        );
      };
      return { receive, sent };
    };
    const forged = `Bearer ${standIn.pushToken({ audience: AUDIENCE, forgeSignature: true })}`;
    const genuine = `Bearer ${standIn.pushToken({ audience: AUDIENCE })}`;
    const refusal = "INVALID_NOTIFICATION: the push token signature does not verify with Google's key";

    const cold_ = await process_();
    expect(await cold_.receive(forged)).toBe(refusal);
    expect(cold_.sent.filter(({ consistent }) => consistent)).toEqual([]);
    expect(cold_.sent.map(({ command }) => command)).toContain('BatchGetItemCommand');

    expect(await cold_.receive(genuine)).toBe('verified');
    expect(await cold_.receive(forged)).toBe(refusal);
    expect(cold_.sent).toEqual([]);
  });
});
