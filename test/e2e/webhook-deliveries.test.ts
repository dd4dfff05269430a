import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1: the local-development opt-in, explicitly (lib/services/webhook-targets.ts).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
});

import { setWebhook } from '../../lib/data/webhooks.js';
import { WEBHOOKS_BASE } from '../../lib/routes.js';
import { deliverStatusChange } from '../../lib/services/webhook-delivery.js';
import { createTestApp, statusChange, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const { request } = useGateway();
const DELIVERIES = `${WEBHOOKS_BASE}/deliveries`;
const redeliverPath = (eventId: string) => `${DELIVERIES}/${eventId}/redeliver`;

describe('GET /v1/webhooks/deliveries and POST .../{event_id}/redeliver (secret key)', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  /** Event ids, oldest first: the first delivered, the second failing (pending its retry). */
  const events: string[] = [];
  const get = (query: Record<string, string> = {}) => request('GET', DELIVERIES, { bearer: app.secretKey, query });

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    app = await createTestApp([]);
    receiver.setSecret((await setWebhook(app.appId, receiver.url)).secret);
    for (const status of [204, 500]) {
      receiver.respond = () => status;
      const detail = statusChange(app.appId);
      await deliverStatusChange(detail);
      events.push(detail.event_id);
    }
  });
  afterAll(() => receiver.close());

  it('lists the deliveries newest first with their status, attempts and last answer', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        expect.objectContaining({
          event_id: events[1],
          event: 'subscription.status_changed',
          subscription_id: 'sub_0123456789abcdef01234567',
          change: 'active->expired',
          status: 'pending',
          attempts: 1,
          next_attempt_at: expect.any(String),
          last_status_code: 500,
          last_error: null,
          redelivered_at: null,
        }),
        expect.objectContaining({ event_id: events[0], status: 'delivered', attempts: 1, last_status_code: 204 }),
      ],
      pagination: { limit: 20, next_cursor: null },
    });
  });

  it('pages with limit and the cursor, and filters by status', async () => {
    const first = await get({ limit: '1' });
    expect(first.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([events[1]]);
    const second = await get({ limit: '1', cursor: first.body.pagination.next_cursor });
    expect(second.body).toMatchObject({ data: [{ event_id: events[0] }], pagination: { next_cursor: null } });
    const pending = await get({ status: 'pending' });
    expect(pending.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([events[1]]);
  });

  it('redelivers a failed event at once and answers the delivery after the attempt', async () => {
    receiver.respond = () => 200;
    const res = await request('POST', redeliverPath(events[1]!), { bearer: app.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      event_id: events[1],
      status: 'delivered',
      attempts: 1,
      last_status_code: 200,
      next_attempt_at: null,
      redelivered_at: expect.any(String),
    });
    expect(receiver.accepted().filter((r) => r.id === events[1])).toHaveLength(1);
    const delivered = await get({ status: 'delivered' });
    expect(delivered.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([events[1], events[0]]);
  });

  it.each([
    ['an event id never recorded', 'evt_000000000000000000000000'],
    ['a string that cannot be an event id', 'not-an-event'],
  ])('answers 404 DELIVERY_NOT_FOUND for %s', async (_name, eventId) => {
    const res = await request('POST', redeliverPath(eventId), { bearer: app.secretKey });
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 404, code: 'DELIVERY_NOT_FOUND' });
  });

  it.each([
    ['an unknown status', { status: 'failed' }, 'query.status'],
    ['a limit over 100', { limit: '101' }, 'query.limit'],
    [
      'a cursor of another status',
      {
        status: 'dead',
        cursor: 'eyJhIjoiMjAyNi0xMS0yMFQxMDowMDowMC4wMDBaI2V2dF8wMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1NjciLCJzIjpudWxsfQ',
      },
      'query.cursor',
    ],
    ['an unknown parameter', { page: '2' }, 'query'],
  ])('refuses %s with 400 INVALID_PARAMETER naming it', async (_name, query, path) => {
    const res = await get(query as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('needs the secret key: the sdk key is 401 INVALID_API_KEY', async () => {
    const res = await request('GET', DELIVERIES, { bearer: app.sdkKey });
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 401, code: 'INVALID_API_KEY' });
  });
});
