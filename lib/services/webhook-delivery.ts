/**
 * Delivery of events to each app's webhook endpoint (of the kinds its filter names, or all):
 * Standard Webhooks signatures, a 15 s timeout per attempt, retries on a schedule of at least 24
 * hours (the workDueByDay index holds the next try), 410 Gone disabling the endpoint, and a
 * dead-letter queue once retries are exhausted. Every attempt is recorded on the delivery.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { config } from '../core/config.js';
import { logger } from '../core/logger.js';
import { isDataStoreUnavailable } from '../data/unavailable.js';
import {
  type AttemptLog,
  createDelivery,
  type DeliveryRecord,
  disableWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  replaceDelivery,
} from '../data/webhooks.js';
import {
  type DeliveryStatus,
  type DeliveryView,
  decodeDeliveryCursor,
  deliveryView,
  encodeDeliveryCursor,
} from '../domain/webhook-deliveries.js';
import { deliveryErrorOf } from '../domain/webhook-errors.js';
import { receivesEvent } from '../domain/webhook-filter.js';
import { type AttemptOutcome, decideAfterAttempt, parseRetryAfter } from '../domain/webhook-retry.js';
import { sendToDeadLetterQueue } from '../events/dead-letter.js';
import type { BusEventDetail } from '../events/schemas.js';
import { signWebhook } from '../events/signing.js';
import { processDueWork } from './due-work.js';
import { guardedLookup, hostAddress, RefusedTargetError, targetRefusal } from './webhook-targets.js';

/** While an attempt is in flight its next try is this far ahead: a crashed attempt is retried after it. */
const ATTEMPT_LEASE_MS = 2 * 60_000;

/**
 * One POST with node:http(s) rather than fetch: a process's first fetch() sets up undici's fetch,
 * a tenth of a cold start of the deliverer and of the retry job (bench/cold-start.ts). As with fetch and `redirect: 'manual'`, a redirect is not followed (a 3xx
 * is a failed attempt); the timeout covers the exchange up to the response head, whose body is
 * never read.
 */
function postOnce(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; retryAfter: string | null }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : undefined;
    if (!send)
      return reject(
        Object.assign(new Error(`unsupported URL protocol ${target.protocol}`), { code: 'ERR_UNSUPPORTED_PROTOCOL' }),
      );
    // A literal address is never looked up: it is checked here, a name by the lookup as it connects.
    const refusal = targetRefusal(hostAddress(target), config.webhookAllowPrivateTargets);
    if (refusal) return reject(new RefusedTargetError(refusal));
    const request = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(timeoutMs),
        lookup: guardedLookup(config.webhookAllowPrivateTargets),
      },
      (response) => {
        response.resume();
        const retryAfter = response.headers['retry-after'];
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null,
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** How long an attempt keeps trying to record its outcome when its caller sets no deadline. */
const DEFAULT_RECORDING_WINDOW_MS = 20_000;

export interface AttemptOptions {
  /**
   * Epoch ms until which an attempt whose request went out keeps trying to record the outcome
   * while DynamoDB is unavailable. An outcome never recorded leaves the attempt claimed, and the
   * event is sent again once the claim runs out: a duplicate (same webhook-id) for the receiver.
   * The deliverer sets it from the time its function has left.
   */
  recordUntil?: number;
  /** Per-attempt timeout, at most the configured one: an API request has less time than the deliverer. */
  timeoutMs?: number;
}

const recordingDeadline = (options: AttemptOptions) => options.recordUntil ?? Date.now() + DEFAULT_RECORDING_WINDOW_MS;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records an attempt's outcome, trying again while DynamoDB is unavailable and time is left. */
async function recordOutcome(next: DeliveryRecord, claimedAttempts: number, recordUntil: number): Promise<void> {
  for (let pauseMs = 250; ; pauseMs = Math.min(2 * pauseMs, 2000)) {
    try {
      await replaceDelivery(next, claimedAttempts);
      return;
    } catch (error) {
      if (!isDataStoreUnavailable(error) || Date.now() + pauseMs > recordUntil) throw error;
      logger.warn('webhook sent, its outcome not yet recorded: DynamoDB unavailable', {
        event_id: next.event_id,
        error: (error as Error).message,
      });
      await sleep(pauseMs);
    }
  }
}

async function post(
  url: string,
  eventId: string,
  secret: string,
  payload: unknown,
  now: Date,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  const { headers, body } = signWebhook(secret, eventId, payload, now);
  try {
    const response = await postOnce(
      url,
      { 'content-type': 'application/json', 'user-agent': 'subscription-backend-webhooks/1', ...headers },
      body,
      timeoutMs,
    );
    return { kind: 'response', status: response.status, retryAfterSeconds: parseRetryAfter(response.retryAfter, now) };
  } catch (error) {
    return { kind: 'error', error: deliveryErrorOf(error) };
  }
}

/**
 * One attempt at a pending delivery. The attempt is claimed first (conditional write on the
 * attempt count), so concurrent workers never send the same attempt twice.
 */
async function attempt(
  delivery: DeliveryRecord,
  recordUntil: number,
  timeoutMs = config.webhookTimeoutMs,
): Promise<DeliveryRecord> {
  const now = new Date();
  const endpoint = await getWebhook(delivery.app_id);
  if (!endpoint?.enabled) {
    const final: DeliveryRecord = {
      ...delivery,
      status: endpoint ? 'endpoint_disabled' : 'no_endpoint',
      next_attempt_at: null,
      updated_at: now.toISOString(),
    };
    await replaceDelivery(final, delivery.attempts);
    return final;
  }
  if (!delivery.redelivered_at && !receivesEvent(endpoint.events, delivery.payload.event)) {
    const final: DeliveryRecord = {
      ...delivery,
      status: 'filtered',
      next_attempt_at: null,
      updated_at: now.toISOString(),
    };
    await replaceDelivery(final, delivery.attempts);
    return final;
  }
  const claimed: DeliveryRecord = {
    ...delivery,
    attempts: delivery.attempts + 1,
    next_attempt_at: new Date(now.getTime() + ATTEMPT_LEASE_MS).toISOString(),
    updated_at: now.toISOString(),
  };
  if (!(await replaceDelivery(claimed, delivery.attempts))) return (await getDelivery(delivery.event_id)) ?? delivery;

  const started = Date.now();
  const outcome = await post(endpoint.url, delivery.event_id, endpoint.secret, delivery.payload, now, timeoutMs);
  const finished = new Date();
  const log: AttemptLog = {
    at: now.toISOString(),
    status_code: outcome.kind === 'response' ? outcome.status : null,
    error: outcome.kind === 'error' ? outcome.error : null,
    duration_ms: Date.now() - started,
  };
  const decision = decideAfterAttempt(outcome, claimed.attempts, finished, config.webhookRetrySchedule);
  const next: DeliveryRecord = {
    ...claimed,
    attempt_log: [...claimed.attempt_log, log],
    updated_at: finished.toISOString(),
    status:
      decision.kind === 'delivered'
        ? 'delivered'
        : decision.kind === 'dead'
          ? 'dead'
          : decision.kind === 'disable'
            ? 'endpoint_disabled'
            : 'pending',
    next_attempt_at: decision.kind === 'retry' ? decision.at.toISOString() : null,
  };
  await recordOutcome(next, claimed.attempts, recordUntil);
  if (decision.kind === 'disable') {
    await disableWebhook(delivery.app_id, `410 Gone from ${endpoint.url} at ${log.at}`);
    logger.warn('webhook endpoint disabled: 410 Gone', { app_id: delivery.app_id, event_id: delivery.event_id });
  }
  if (decision.kind === 'dead') {
    await sendToDeadLetterQueue(delivery, `no 2xx after ${next.attempts} attempts`);
    logger.error('webhook delivery dead-lettered', {
      app_id: delivery.app_id,
      event_id: delivery.event_id,
      attempts: next.attempts,
    });
  }
  return next;
}

/** A status change arriving from the bus: record it once (the bus may repeat it) and try at once. */
export async function deliverStatusChange(
  detail: BusEventDetail,
  options: AttemptOptions = {},
): Promise<DeliveryRecord> {
  const created = await createDelivery(detail, new Date());
  if (!created) {
    const existing = await getDelivery(detail.event_id);
    if (!existing) throw new Error(`delivery ${detail.event_id} vanished`);
    return existing;
  }
  return attempt(created, recordingDeadline(options));
}

export interface RetryResult {
  attempted: number;
  delivered: number;
  failed: number;
}

/** The retry job: every pending delivery whose next try is due. */
export async function retryDueDeliveries(now = new Date(), options: AttemptOptions = {}): Promise<RetryResult> {
  let attempted = 0;
  let delivered = 0;
  const { failed } = await processDueWork('DLV', now, { limit: 500, concurrency: 4 }, async (item) => {
    const delivery = await getDelivery(item.event_id as string);
    if (delivery?.status !== 'pending' || !delivery.next_attempt_at || delivery.next_attempt_at > now.toISOString())
      return;
    attempted += 1;
    if ((await attempt(delivery, recordingDeadline(options))).status === 'delivered') delivered += 1;
  });
  return { attempted, delivered, failed };
}

/**
 * A fresh round of attempts for one event, whatever its state (`admin webhooks redeliver`, `POST
 * /v1/webhooks/deliveries/{event_id}/redeliver`), and its first attempt at once. The operator named
 * the event, so it is sent even when the endpoint's filter leaves its kind out (its retries too).
 * With `appId`, an event of another app is not found, like one that does not exist.
 */
export async function redeliver(
  eventId: string,
  options: AttemptOptions & { appId?: string } = {},
): Promise<DeliveryRecord | undefined> {
  const delivery = await getDelivery(eventId);
  if (!delivery || (options.appId !== undefined && delivery.app_id !== options.appId)) return undefined;
  const now = new Date().toISOString();
  const reset: DeliveryRecord = {
    ...delivery,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    redelivered_at: now,
    updated_at: now,
  };
  await replaceDelivery(reset, delivery.attempts, true);
  const timeoutMs = Math.min(options.timeoutMs ?? config.webhookTimeoutMs, config.webhookTimeoutMs);
  return attempt(reset, recordingDeadline(options), timeoutMs);
}

export interface DeliveryList {
  data: DeliveryView[];
  pagination: { limit: number; next_cursor: string | null };
}

/** One page of the app's deliveries, newest first, all or of one status; `cursor` continues a previous page. */
export async function listDeliveryPage(
  appId: string,
  query: { limit: number; status?: DeliveryStatus; cursor?: string },
): Promise<DeliveryList> {
  const status = query.status ?? null;
  const after = query.cursor === undefined ? undefined : decodeDeliveryCursor(query.cursor, status);
  const page = await listDeliveries(appId, { limit: query.limit, status: query.status, after });
  return {
    data: page.deliveries.map(deliveryView),
    pagination: {
      limit: query.limit,
      next_cursor: page.lastSortKey === null ? null : encodeDeliveryCursor({ after: page.lastSortKey, status }),
    },
  };
}
