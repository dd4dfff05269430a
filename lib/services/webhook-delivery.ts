/**
 * Delivery of events to each app's webhook endpoint (of the kinds its filter names, or all):
 * Standard Webhooks signatures, a 15 s timeout per attempt, retries on a schedule of at least 24
 * hours (the workDueByDay index holds the next try), 410 Gone disabling the endpoint, and a
 * dead-letter queue once retries are exhausted. Every attempt is recorded on the delivery. Retries
 * are taken round robin across apps with a per-app cap, and an endpoint that keeps timing out is
 * paused (domain/webhook-scheduling.ts), so one app's dead receiver holds back no other app's.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { webhookConfig } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { advanceCheckpoint, findDueItems } from '../data/due.js';
import { isDataStoreUnavailable } from '../data/unavailable.js';
import { namesAnErasedUser, recordEventOfUsers } from '../data/user-events.js';
import {
  type AttemptLog,
  countEndpointTimeout,
  createDelivery,
  type DeliveryRecord,
  disableWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  replaceDelivery,
  setEndpointPause,
} from '../data/webhooks.js';
import { checkpointAfter, type HandledDueDay } from '../domain/due-checkpoint.js';
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
import {
  type BreakerSettings,
  type BreakerState,
  chooseNextAttempts,
  DEFAULT_BREAKER,
  type DueAttempt,
  isPaused,
  PER_APP_CONCURRENCY,
  pauseAfterTimeout,
  RETRY_CONCURRENCY,
} from '../domain/webhook-scheduling.js';
import { sendToDeadLetterQueue } from '../events/dead-letter.js';
import type { BusEventDetail } from '../events/schemas.js';
import { signWebhook } from '../events/signing.js';
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
    const refusal = targetRefusal(hostAddress(target), webhookConfig.webhookAllowPrivateTargets);
    if (refusal) return reject(new RefusedTargetError(refusal));
    const request = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(timeoutMs),
        lookup: guardedLookup(webhookConfig.webhookAllowPrivateTargets),
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
 * What one retry run (or one deliverer invocation) knows of the endpoints' breakers: what it read,
 * and what its own attempts changed since, so an endpoint paused by one attempt is not tried by the
 * next of the same run before the table says so.
 */
interface BreakerMemory {
  settings: BreakerSettings;
  states: Map<string, BreakerState>;
}

const newBreakerMemory = (settings: BreakerSettings = DEFAULT_BREAKER): BreakerMemory => ({
  settings,
  states: new Map(),
});

/** The later of what the table and this run know: a pause one of them saw is not forgotten. */
function breakerOf(memory: BreakerMemory, appId: string, stored: BreakerState): BreakerState {
  const known = memory.states.get(appId);
  if (!known) return stored;
  return {
    consecutive_timeouts: Math.max(known.consecutive_timeouts, stored.consecutive_timeouts),
    paused_until: (known.paused_until ?? '') > (stored.paused_until ?? '') ? known.paused_until : stored.paused_until,
  };
}

/** Counts a timeout towards the endpoint's pause, or closes its breaker after any other outcome. */
async function updateBreaker(
  memory: BreakerMemory,
  appId: string,
  url: string,
  before: BreakerState,
  outcome: AttemptOutcome,
  at: Date,
): Promise<void> {
  if (outcome.kind === 'error' && outcome.error === 'timeout') {
    const timeouts = await countEndpointTimeout(appId, url);
    if (timeouts === null) return;
    const until = pauseAfterTimeout(timeouts, at, memory.settings);
    if (until) {
      await setEndpointPause(appId, url, until);
      logger.warn('webhook endpoint paused: its attempts keep timing out', { app_id: appId, timeouts, until });
    }
    memory.states.set(appId, { consecutive_timeouts: timeouts, paused_until: until ?? before.paused_until });
  } else if (before.consecutive_timeouts > 0 || before.paused_until !== null) {
    await setEndpointPause(appId, url, null);
    memory.states.set(appId, { consecutive_timeouts: 0, paused_until: null });
  }
}

type AttemptResult =
  | { kind: 'sent' | 'settled' | 'claimed_elsewhere'; delivery: DeliveryRecord }
  /** The endpoint is paused: nothing sent, the try put off to the end of the pause. */
  | { kind: 'paused'; delivery: DeliveryRecord };

interface AttemptContext {
  recordUntil: number;
  timeoutMs: number;
  breakers: BreakerMemory;
  /** A redelivery the operator asked for is sent even while the endpoint is paused. */
  ignorePause?: boolean;
}

/**
 * One attempt at a pending delivery. The attempt is claimed first (conditional write on the
 * attempt count), so concurrent workers never send the same attempt twice.
 */
async function attempt(delivery: DeliveryRecord, context: AttemptContext): Promise<AttemptResult> {
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
    return { kind: 'settled', delivery: final };
  }
  if (!delivery.redelivered_at && !receivesEvent(endpoint.events, delivery.payload.event)) {
    const final: DeliveryRecord = {
      ...delivery,
      status: 'filtered',
      next_attempt_at: null,
      updated_at: now.toISOString(),
    };
    await replaceDelivery(final, delivery.attempts);
    return { kind: 'settled', delivery: final };
  }
  const breaker = breakerOf(context.breakers, delivery.app_id, endpoint.breaker);
  if (!context.ignorePause && isPaused(breaker, now)) {
    const putOff: DeliveryRecord = {
      ...delivery,
      next_attempt_at: breaker.paused_until,
      updated_at: now.toISOString(),
    };
    if (!(await replaceDelivery(putOff, delivery.attempts)))
      return { kind: 'claimed_elsewhere', delivery: (await getDelivery(delivery.event_id)) ?? delivery };
    return { kind: 'paused', delivery: putOff };
  }
  const claimed: DeliveryRecord = {
    ...delivery,
    attempts: delivery.attempts + 1,
    next_attempt_at: new Date(now.getTime() + ATTEMPT_LEASE_MS).toISOString(),
    updated_at: now.toISOString(),
  };
  if (!(await replaceDelivery(claimed, delivery.attempts)))
    return { kind: 'claimed_elsewhere', delivery: (await getDelivery(delivery.event_id)) ?? delivery };

  const started = Date.now();
  const outcome = await post(
    endpoint.url,
    delivery.event_id,
    endpoint.secret,
    delivery.payload,
    now,
    context.timeoutMs,
  );
  const finished = new Date();
  const log: AttemptLog = {
    at: now.toISOString(),
    status_code: outcome.kind === 'response' ? outcome.status : null,
    error: outcome.kind === 'error' ? outcome.error : null,
    duration_ms: Date.now() - started,
  };
  const decision = decideAfterAttempt(outcome, claimed.attempts, finished, webhookConfig.webhookRetrySchedule);
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
  await recordOutcome(next, claimed.attempts, context.recordUntil);
  await updateBreaker(context.breakers, delivery.app_id, endpoint.url, breaker, outcome, finished);
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
  return { kind: 'sent', delivery: next };
}

/** A status change arriving from the bus: record it once (the bus may repeat it) and try at once. */
export async function deliverStatusChange(
  detail: BusEventDetail,
  options: AttemptOptions = {},
): Promise<DeliveryRecord> {
  await recordEventOfUsers(detail);
  const created = await createDelivery(detail, new Date());
  if (!created) {
    const existing = await getDelivery(detail.event_id);
    if (!existing) throw new Error(`delivery ${detail.event_id} vanished`);
    return existing;
  }
  const result = await attempt(created, {
    recordUntil: recordingDeadline(options),
    timeoutMs: webhookConfig.webhookTimeoutMs,
    breakers: newBreakerMemory(),
  });
  return result.delivery;
}

/** What one run of the retry job did: its "webhook retries" log line. attempted = delivered + not_delivered + not_sent. */
export interface RetryResult {
  /** Due deliveries handed to an attempt (one another run claimed first included). */
  attempted: number;
  /** Sent, and the endpoint answered 2xx. */
  delivered: number;
  /** Sent, and not taken (an error, a timeout, a non-2xx answer): to be retried, dead-lettered, or the endpoint disabled by a 410. */
  not_delivered: number;
  /** Attempted without a request: another run claimed it first, or it settled unsent (no endpoint, endpoint disabled, kind filtered). */
  not_sent: number;
  /** Put off to the end of their endpoint's pause, unsent. */
  paused: number;
  /** Left due for the next run: the run's deadline came first. */
  left: number;
  /** Due deliveries whose handling threw (logged as "webhook retry failed"): their day is read again by the next run. */
  job_errors: number;
}

export interface RetryOptions extends AttemptOptions {
  /** Epoch ms after which the run starts no attempt (the function's time runs out). */
  deadline?: number | undefined;
  concurrency?: number;
  perAppConcurrency?: number;
  breaker?: BreakerSettings;
}

/** Due deliveries one run reads at most (the next run reads the rest). */
const RETRY_BATCH = 500;

/**
 * The retry job: the pending deliveries whose next try is due, taken round robin across apps with
 * at most `perAppConcurrency` of an app in flight (domain/webhook-scheduling.ts), an endpoint that
 * keeps timing out paused, and no attempt started after the deadline.
 */
export async function retryDueDeliveries(now = new Date(), options: RetryOptions = {}): Promise<RetryResult> {
  const concurrency = options.concurrency ?? RETRY_CONCURRENCY;
  const perAppCap = options.perAppConcurrency ?? PER_APP_CONCURRENCY;
  const context: AttemptContext = {
    recordUntil: recordingDeadline(options),
    timeoutMs: webhookConfig.webhookTimeoutMs,
    breakers: newBreakerMemory(options.breaker),
  };
  const result: RetryResult = {
    attempted: 0,
    delivered: 0,
    not_delivered: 0,
    not_sent: 0,
    paused: 0,
    left: 0,
    job_errors: 0,
  };
  const days = await findDueItems('DLV', now, RETRY_BATCH);
  type Queued = DueAttempt & { day: string };
  let queued: Queued[] = days.flatMap(({ day, items }) =>
    items.map((item) => ({ event_id: String(item.event_id), app_id: String(item.app_id), day })),
  );
  const unfinished = new Map(days.map(({ day, items }) => [day, items.length]));
  const failedDays = new Set<string>();
  const inFlight = new Map<string, number>();
  let lastServed: string | undefined;
  const timeLeft = () => options.deadline === undefined || Date.now() < options.deadline;

  const work = async (item: Queued) => {
    const delivery = await getDelivery(item.event_id);
    if (delivery?.status !== 'pending' || !delivery.next_attempt_at || delivery.next_attempt_at > now.toISOString())
      return;
    const done = await attempt(delivery, context);
    if (done.kind === 'paused') {
      result.paused += 1;
      return;
    }
    result.attempted += 1;
    if (done.kind !== 'sent') result.not_sent += 1;
    else if (done.delivery.status === 'delivered') result.delivered += 1;
    else result.not_delivered += 1;
  };

  await new Promise<void>((resolve) => {
    let running = 0;
    const pump = () => {
      const chosen = timeLeft()
        ? chooseNextAttempts(queued, inFlight, concurrency - running, perAppCap, lastServed)
        : [];
      const taken = new Set(chosen.map((item) => item.event_id));
      const picked = queued.filter((item) => taken.has(item.event_id));
      queued = queued.filter((item) => !taken.has(item.event_id));
      for (const item of picked) {
        running += 1;
        inFlight.set(item.app_id, (inFlight.get(item.app_id) ?? 0) + 1);
        lastServed = item.app_id;
        work(item)
          .catch((error: unknown) => {
            result.job_errors += 1;
            failedDays.add(item.day);
            logger.error('webhook retry failed', { event_id: item.event_id, error: (error as Error).message });
          })
          .finally(() => {
            running -= 1;
            inFlight.set(item.app_id, inFlight.get(item.app_id)! - 1);
            unfinished.set(item.day, unfinished.get(item.day)! - 1);
            pump();
          });
      }
      if (running === 0) resolve();
    };
    pump();
  });

  result.left = queued.length;
  // A day is finished once each of its items was handled without a failure (as in due-work.ts).
  const handled: HandledDueDay[] = days.map(({ day, complete }) => ({
    day,
    complete: complete && unfinished.get(day) === 0,
    failed: failedDays.has(day),
  }));
  const checkpoint = checkpointAfter(handled, now);
  if (checkpoint) await advanceCheckpoint('DLV', checkpoint);
  return result;
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
  if (await namesAnErasedUser(delivery)) throw new AppError('EVENT_OF_ERASED_USER');
  // The delivery is kept the retention from now on: so is the pointer that lets an erasure find it.
  await recordEventOfUsers(delivery);
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
  const timeoutMs = Math.min(options.timeoutMs ?? webhookConfig.webhookTimeoutMs, webhookConfig.webhookTimeoutMs);
  // The operator asked for this event: sent even while its endpoint is paused (one bounded attempt).
  const result = await attempt(reset, {
    recordUntil: recordingDeadline(options),
    timeoutMs,
    breakers: newBreakerMemory(),
    ignorePause: true,
  });
  return result.delivery;
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
