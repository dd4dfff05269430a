/**
 * The OIDC token of a Pub/Sub push, claim by claim and at each bound, against Google's keys served
 * over HTTP by the stand-in (and, for key sets Google would never publish, by a server of this
 * file's). Each check is a cold process's: lib/ keeps Google's keys by URL, and each asks at a URL
 * of its own (the same keys, a query of its own), so it finds none cached.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import { verifyPubSubPushToken } from '../../lib/stores/google-play-notifications.js';
import { PUSH_SERVICE_ACCOUNT, type StandIn, startGooglePlayStandIn } from '../support/google-play-standin.js';
import { freePort } from '../support/ports.js';

const AUDIENCE = 'https://api.example.com/notifications/google-play/app_rtdn';
const ISSUED = 1_795_000_000;
const NOW_MS = ISSUED * 1000;

let processes = 0;

describe('the OIDC token of a Pub/Sub push', () => {
  let standIn: StandIn;
  let keySetServer: Server;
  let keySetBody = '';
  let keySetUrl = '';
  let keySetAccept: string | undefined;
  beforeAll(async () => {
    standIn = await startGooglePlayStandIn('com.example.subs');
    keySetServer = createServer((request, response) => {
      keySetAccept = request.headers.accept;
      response.writeHead(200).end(keySetBody);
    });
    await new Promise<void>((resolve) => keySetServer.listen(0, '127.0.0.1', resolve));
    keySetUrl = `http://127.0.0.1:${(keySetServer.address() as AddressInfo).port}/certs`;
  });
  afterAll(async () => {
    await standIn?.close();
    await new Promise((resolve) => keySetServer?.close(resolve));
  });

  const token = (options: Partial<Parameters<StandIn['pushToken']>[0]> = {}) =>
    standIn.pushToken({ audience: AUDIENCE, issuedAt: ISSUED, ...options });
  /** The claims, or the error's code and message. */
  async function verified(
    authorization: string | undefined,
    { now = NOW_MS, jwksUrl = standIn.jwksUrl, serviceAccountEmail = PUSH_SERVICE_ACCOUNT as string | null } = {},
  ) {
    try {
      return await verifyPubSubPushToken(
        authorization,
        { audience: AUDIENCE, ...(serviceAccountEmail ? { serviceAccountEmail } : {}) },
        now,
        `${jwksUrl}?process=${++processes}`,
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { code: error.code, message: error.message, retryable: error.retryable };
    }
  }
  const refused = (message: string) => ({ code: 'INVALID_NOTIFICATION', message, retryable: false });

  it('accepts a token Google signed for this audience, from either of its issuer spellings, and reads its claims', async () => {
    for (const issuer of ['https://accounts.google.com', 'accounts.google.com']) {
      expect(await verified(`Bearer ${token({ issuer })}`)).toEqual({
        iss: issuer,
        aud: AUDIENCE,
        sub: '112233445566778899000',
        email: PUSH_SERVICE_ACCOUNT,
        exp: ISSUED + 3600,
        iat: ISSUED,
      });
    }
  });

  it('reads the scheme in any case, and the header with blanks around it', async () => {
    expect(await verified(`bearer ${token()}`)).toMatchObject({ aud: AUDIENCE });
    expect(await verified(`  Bearer ${token()}\t`)).toMatchObject({ aud: AUDIENCE });
  });

  it.each<[string, () => string | undefined, string]>([
    [
      'no header',
      () => undefined,
      'the push carries no Authorization bearer token (turn on authentication in the push subscription)',
    ],
    ['another scheme', () => `Basic ${token()}`, 'the Authorization header is not a bearer JWT'],
    ['text before the scheme', () => `xBearer ${token()}`, 'the Authorization header is not a bearer JWT'],
    ['a fourth part', () => `Bearer ${token()}.e30`, 'the Authorization header is not a bearer JWT'],
    ['text after the token', () => `Bearer ${token()} x`, 'the Authorization header is not a bearer JWT'],
    [
      'a header of 8,192 characters',
      () => `Bearer ${'a'.repeat(8192 - 7)}`,
      'the Authorization header is not a bearer JWT',
    ],
    ['a header of 8,193 characters', () => `Bearer ${'a'.repeat(8193 - 7)}`, 'the Authorization header is too long'],
    [
      'a JOSE header that is not JSON',
      () => `Bearer bm90IGpzb24.e30.c2ln`,
      "the push token's header is not a JSON object",
    ],
    [
      'a JOSE header that is a list',
      () => `Bearer ${b64(['RS256'])}.e30.c2ln`,
      "the push token's header is not a JSON object",
    ],
    [
      'a JOSE header that is null',
      () => `Bearer ${b64(null)}.e30.c2ln`,
      "the push token's header is not a JSON object",
    ],
    [
      'a JOSE header that is a string',
      () => `Bearer ${b64('RS256')}.e30.c2ln`,
      "the push token's header is not a JSON object",
    ],
    ['another algorithm', () => `Bearer ${token({ alg: 'HS256' })}`, 'the push token is not RS256-signed (alg HS256)'],
    ['no kid', () => `Bearer ${b64({ alg: 'RS256' })}.e30.c2ln`, 'the push token names no key (kid)'],
    ['an empty kid', () => `Bearer ${b64({ alg: 'RS256', kid: '' })}.e30.c2ln`, 'the push token names no key (kid)'],
    [
      'a kid of 257 characters',
      () => `Bearer ${b64({ alg: 'RS256', kid: 'k'.repeat(257) })}.e30.c2ln`,
      'the push token names no key (kid)',
    ],
    [
      'a kid of 256 characters Google does not publish',
      () => `Bearer ${b64({ alg: 'RS256', kid: 'k'.repeat(256) })}.e30.c2ln`,
      `the push token is signed with a key Google does not publish (kid ${'k'.repeat(256)})`,
    ],
    [
      'a forged signature',
      () => `Bearer ${token({ forgeSignature: true })}`,
      "the push token signature does not verify with Google's key",
    ],
    [
      'another issuer',
      () => `Bearer ${token({ issuer: 'https://accounts.example.com' })}`,
      'the push token was not issued by Google (iss https://accounts.example.com)',
    ],
    [
      'another audience',
      () => `Bearer ${standIn.pushToken({ audience: 'https://other.example', issuedAt: ISSUED })}`,
      "the push token is for another audience (https://other.example), not this app's push audience",
    ],
    [
      'another service account',
      () => `Bearer ${token({ email: 'x@example.com' })}`,
      'the push token is for another service account (x@example.com)',
    ],
    [
      'an unverified email',
      () => `Bearer ${token({ emailVerified: false })}`,
      "the push token's email is not verified",
    ],
  ])('refuses %s', async (_, authorization, message) => {
    expect(await verified(authorization())).toEqual(refused(message));
  });

  it('allows a minute of clock skew each way, and not a second more', async () => {
    const at = (seconds: number) => ({ now: seconds * 1000 });
    // Expired at ISSUED + 3600: still taken 59 s later, not 60 s later.
    expect(await verified(`Bearer ${token()}`, at(ISSUED + 3659))).toMatchObject({ aud: AUDIENCE });
    expect(await verified(`Bearer ${token()}`, at(ISSUED + 3660))).toEqual(refused('the push token has expired'));
    // Issued at ISSUED: taken from 60 s before, not 61 s before.
    expect(await verified(`Bearer ${token()}`, at(ISSUED - 60))).toMatchObject({ aud: AUDIENCE });
    expect(await verified(`Bearer ${token()}`, at(ISSUED - 61))).toEqual(
      refused('the push token is issued in the future'),
    );
  });

  it('checks the service account only where the app names one', async () => {
    expect(
      await verified(`Bearer ${token({ email: 'x@example.com', emailVerified: false })}`, {
        serviceAccountEmail: null,
      }),
    ).toMatchObject({ email: 'x@example.com' });
  });

  it.each<[string, string, string]>([
    ['not JSON', 'keys', "Google's OIDC keys are unreadable; retry"],
    ['no keys', '{"keys":[]}', "Google's OIDC key set holds no RSA key; retry"],
    ['no key list', '{"keys":{"kid":"a"}}', "Google's OIDC key set holds no RSA key; retry"],
    [
      'only EC keys',
      '{"keys":[{"kty":"EC","kid":"a","crv":"P-256","x":"x","y":"y"}]}',
      "Google's OIDC key set holds no RSA key; retry",
    ],
    ['a null body', 'null', "Google's OIDC key set holds no RSA key; retry"],
    [
      'only a usable EC key',
      JSON.stringify({ keys: [{ ...ecJwk, kid: 'ec' }] }),
      "Google's OIDC key set holds no RSA key; retry",
    ],
    [
      'only a usable RSA key without a kid',
      JSON.stringify({ keys: [rsaJwk] }),
      "Google's OIDC key set holds no RSA key; retry",
    ],
    [
      'RSA keys without a kid, or unusable',
      '{"keys":[null,{"kty":"RSA","n":"AQAB","e":"AQAB"},{"kty":"RSA","kid":"b","n":"!"}]}',
      "Google's OIDC key set holds no RSA key; retry",
    ],
  ])('a key set with %s cannot be used: VERIFICATION_FAILED, retryable', async (_, body, message) => {
    keySetBody = body;
    expect(await verified(`Bearer ${token()}`, { jwksUrl: keySetUrl })).toEqual({
      code: 'VERIFICATION_FAILED',
      message,
      retryable: true,
    });
  });

  it('keys Google answers for with an error: VERIFICATION_FAILED, retryable, naming the status', async () => {
    standIn.failNext('/oauth2/v3/certs', 503);
    expect(await verified(`Bearer ${token()}`)).toEqual({
      code: 'VERIFICATION_FAILED',
      message: "Google's OIDC keys could not be read (HTTP 503); retry",
      retryable: true,
    });
  });

  it('asks for the keys as JSON, and names why they could not be read when Google cannot be reached', async () => {
    keySetBody = JSON.stringify({ keys: [{ ...rsaJwk, kid: 'mine' }] });
    await verified(`Bearer ${token()}`, { jwksUrl: keySetUrl });
    expect(keySetAccept).toBe('application/json');
    const closed = `http://127.0.0.1:${await freePort()}/certs`;
    expect(await verified(`Bearer ${token()}`, { jwksUrl: closed })).toEqual({
      code: 'VERIFICATION_FAILED',
      message: expect.stringMatching(/^Google's OIDC keys could not be read \(.*ECONNREFUSED.*\); retry$/),
      retryable: true,
    });
  });

  it('a signed payload that is not a JSON object is refused', async () => {
    keySetBody = JSON.stringify({ keys: [{ ...rsaJwk, kid: 'mine' }] });
    const signed = (payload: unknown) => {
      const input = `${b64({ alg: 'RS256', kid: 'mine' })}.${b64(payload)}`;
      return `Bearer ${input}.${sign('sha256', Buffer.from(input), rsaPair.privateKey).toString('base64url')}`;
    };
    for (const payload of [['claims'], null, 'claims']) {
      expect(await verified(signed(payload), { jwksUrl: keySetUrl })).toEqual(
        refused("the push token's payload is not a JSON object"),
      );
    }
  });

  it('a process with no keys cached fetches them once', async () => {
    const before = standIn.jwksRequests;
    await verified(`Bearer ${token()}`);
    expect(standIn.jwksRequests).toBe(before + 1);
  });
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const rsaPair = generateKeyPairSync('rsa', { modulusLength: 2048 });
/** A usable RSA key that is not Google's, as a JWK without a kid. */
const rsaJwk = rsaPair.publicKey.export({ format: 'jwk' });
/** A usable EC key, as a JWK without a kid. */
const ecJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
