/**
 * Issue #7, "Hostile input", for the store notification routes (see test/support/hostile-endpoints.ts),
 * and what they answer to the bodies a store never sends. Decided here: the body is read as JSON
 * whatever its Content-Type says (Apple and Pub/Sub send application/json; refusing a genuine,
 * signed notification over a header would only make the store retry it for days); a body over
 * 64 KB is a 413, anything else not a genuine notification of the path's app a 400 INVALID_NOTIFICATION.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('../support/stand-in-apple-root.js'));
const google = await vi.hoisted(async () => {
  // Its own table, so a full scan before and after each request is small and sees only this file's writes.
  process.env.TABLE_NAME = `hostile-input-notifications-${process.pid}`;
  const { startGooglePlayStandIn } = await import('../support/google-play-standin.js');
  const standIn = await startGooglePlayStandIn('com.example.subs');
  // Store URLs are configuration read once at start-up: set before lib/ is imported.
  process.env.GOOGLE_OIDC_JWKS_URL = standIn.jwksUrl;
  process.env.GOOGLE_PLAY_API_BASE_URL = standIn.url;
  process.env.GOOGLE_OAUTH_TOKEN_URL = standIn.tokenUrl;
  return standIn;
});

import { MAX_NOTIFICATION_BYTES } from '../../lib/domain/store-purchase.js';
import { notificationPath, ROUTES } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { fuzzEveryRouteOf } from '../support/hostile-endpoints.js';
import { useGateway } from '../support/http.js';
import { buildNotificationFixture, type NotificationFixture } from '../support/notification-requests.js';
import { diffSnapshots, isEmptyDiff, snapshotTable } from '../support/table-snapshot.js';

afterAll(() => google.close());

// 3 routes x 80 cases, as the other APIs' files.
fuzzEveryRouteOf('notifications', 80, async (fixture) => {
  fixture.notifications = await buildNotificationFixture(fixture.app, google);
});

describe('what the notification routes answer to bodies no store sends', () => {
  const { send } = useGateway();
  let app: TestApp;
  let other: TestApp;
  let notifications: NotificationFixture;
  const STORES = [
    ['AppStoreNotification', 'app_store'],
    ['GooglePlayNotification', 'google_play'],
    ['TestStoreNotification', 'test_store'],
  ] as const;
  const valid = (name: (typeof STORES)[number][0]): { body: unknown; headers: Record<string, string> } =>
    name === 'AppStoreNotification'
      ? { body: notifications.appStore, headers: {} }
      : name === 'GooglePlayNotification'
        ? { body: notifications.googlePlay.body, headers: { authorization: notifications.googlePlay.authorization } }
        : { body: notifications.testStore, headers: {} };
  /** Status and error code (none on a success); the contract is checked by send. */
  const post = async (path: string, body: string | Buffer | undefined, headers: Record<string, string> = {}) => {
    const answer = await send('POST', path, { headers, ...(body === undefined ? {} : { body }) });
    const parsed = JSON.parse(answer.text) as { error?: { code: string } };
    return `${answer.status}${parsed.error ? ` ${parsed.error.code}` : ''}`;
  };
  /** The valid body, grown to exactly `bytes` with a field the stores' decoders ignore. */
  const padded = (body: unknown, bytes: number) => {
    const text = JSON.stringify(body);
    const shell = `${text.slice(0, -1)},"padding":""}`;
    return `${text.slice(0, -1)},"padding":"${'x'.repeat(bytes - Buffer.byteLength(shell))}"}`;
  };

  beforeAll(async () => {
    expect(ROUTES.filter((route) => route.api === 'notifications').map((route) => route.name)).toEqual(
      STORES.map(([name]) => name),
    );
    app = await createTestApp();
    other = await createTestApp([]);
    notifications = await buildNotificationFixture(app, google);
  });

  it.each(STORES)('%s: a body over 64 KB is 413 PAYLOAD_TOO_LARGE, unread and writing nothing', async (name, store) => {
    const { body, headers } = valid(name);
    const before = await snapshotTable();
    const json = { ...headers, 'content-type': 'application/json' };
    expect(await post(notificationPath(store, app.appId), padded(body, MAX_NOTIFICATION_BYTES + 1), json)).toBe(
      '413 PAYLOAD_TOO_LARGE',
    );
    expect(isEmptyDiff(diffSnapshots(before, await snapshotTable()))).toBe(true);
    // At the bound it is read (and applied, or found applied before).
    expect(await post(notificationPath(store, app.appId), padded(body, MAX_NOTIFICATION_BYTES), json)).toBe('200');
  });

  it.each(STORES)(
    '%s: not JSON, empty, or not for an app of the service is 400 INVALID_NOTIFICATION',
    async (name, store) => {
      const { body, headers } = valid(name);
      const json = { ...headers, 'content-type': 'application/json' };
      const before = await snapshotTable();
      const path = notificationPath(store, app.appId);
      expect(await post(path, 'signedPayload=eyJ', json)).toBe('400 INVALID_NOTIFICATION');
      expect(await post(path, '{"signedPayload": ', json)).toBe('400 INVALID_NOTIFICATION');
      expect(await post(path, '', json)).toBe('400 INVALID_NOTIFICATION');
      expect(await post(path, undefined, headers)).toBe('400 INVALID_NOTIFICATION');
      expect(await post(path, '[]', json)).toBe('400 INVALID_NOTIFICATION');
      expect(await post(path, '{}', json)).toBe('400 INVALID_NOTIFICATION');
      for (const appId of ['app_0000000000000000', other.appId, 'nope']) {
        expect(await post(notificationPath(store, appId), JSON.stringify(body), json), appId).toBe(
          '400 INVALID_NOTIFICATION',
        );
      }
      expect(isEmptyDiff(diffSnapshots(before, await snapshotTable()))).toBe(true);
    },
  );

  it.each(STORES)('%s: the body is read as JSON whatever the Content-Type (or none)', async (name, store) => {
    const { body, headers } = valid(name);
    for (const contentType of [undefined, 'text/plain', 'application/x-www-form-urlencoded']) {
      const answer = await post(notificationPath(store, app.appId), JSON.stringify(body), {
        ...headers,
        ...(contentType ? { 'content-type': contentType } : {}),
      });
      expect(answer, String(contentType)).toBe('200');
    }
  });

  it("Google Play: a push without Pub/Sub's token, or with one for another audience, is 400 INVALID_NOTIFICATION", async () => {
    const path = notificationPath('google_play', app.appId);
    const body = JSON.stringify(notifications.googlePlay.body);
    const json = { 'content-type': 'application/json' };
    expect(await post(path, body, json)).toBe('400 INVALID_NOTIFICATION');
    const elsewhere = google.pushToken({ audience: `${notifications.pushAudience}x` });
    expect(await post(path, body, { ...json, authorization: `Bearer ${elsewhere}` })).toBe('400 INVALID_NOTIFICATION');
  });
});
