/**
 * The soak's clients: N workers speaking HTTP to the local gateway as apps and SDKs would, for a
 * bounded time, with a mix of mobile reports, purchases and lifecycle changes, detail and list
 * reads. Every request is recorded (type, timing, status, outcome) and every acknowledged (2xx)
 * write is written into a ledger, which the reconciliation later holds against the table.
 *
 * Each worker owns its users and subscriptions, so the last acknowledged change of a subscription
 * is the last one committed and its final state is known. Idempotent writes (event batches,
 * sessions, creates with a transaction id, verifies) are retried after a retryable error, as an
 * SDK would; a lifecycle change is not (cancel/renew/pause/resume are not idempotent): after an
 * unanswered one the worker reads the subscription again before it changes it any further.
 *
 * DynamoDB Local acknowledges a TransactWriteItems a few milliseconds before the write is durable
 * (PutItem and BatchWriteItem it acknowledges durably): killed with SIGKILL, it can lose the
 * transaction it acknowledged last. Real DynamoDB does not. So after the restart a worker reads
 * again any subscription whose last acknowledged change was answered around the kill, before it
 * relies on it, and the reconciliation reports such losses apart from every other mismatch.
 */
import type { SubscriptionStatus } from '../../lib/domain/subscription-state.js';
import { SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import type { TestApp } from '../../test/support/fixtures.js';
import { mobileHeaders } from '../../test/support/mobile.js';

export const REQUEST_TYPES = [
  'events',
  'session',
  'create',
  'verify',
  'activate',
  'renew',
  'pause',
  'resume',
  'cancel',
  'get',
  'list',
] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

/** Lifecycle changes of a subscription the workers own (none is idempotent). */
const LIFECYCLE_TYPES: readonly RequestType[] = ['activate', 'renew', 'pause', 'resume', 'cancel'];
const WRITE_TYPES: readonly RequestType[] = ['events', 'session', 'create', 'verify', ...LIFECYCLE_TYPES];
export const isWrite = (type: RequestType): boolean => WRITE_TYPES.includes(type);

/**
 * ok: 2xx (or, re-reading a subscription whose creation may have been lost, a 404). retryable: 503
 * with `retryable: true` and a Retry-After header (what the service must answer while DynamoDB is
 * away). Anything else is unexpected: every request of the mix is valid.
 */
export type Outcome = 'ok' | 'retryable' | 'client_error' | 'server_error' | 'network_error';

/** When a request was sent and answered, in ms on the soak's clock. */
export interface Timing {
  start: number;
  end: number;
}

export interface RequestSample extends Timing {
  type: RequestType;
  status: number;
  outcome: Outcome;
  /** The answer carried the per-key rate limiter's RateLimit header (the limiter counted the request). */
  rateLimitHeader: boolean;
}

export interface UnexpectedResponse {
  type: RequestType;
  method: string;
  path: string;
  status: number;
  body: string;
  at: number;
}

/** DynamoDB Local killed at `killedAt`, answering again at `restoredAt` (soak clock). */
export interface OutageRecord {
  killedAt: number;
  restoredAt: number;
}

/** How long before the kill an acknowledgement counts as at risk (DynamoDB Local's window is a few ms; the clocks differ by event-loop delays). */
const AT_RISK_BEFORE_KILL_MS = 500;

/** An acknowledgement DynamoDB Local may have given for a transaction its SIGKILL then lost. */
export function acknowledgedAtRisk(ack: Timing, outage: OutageRecord | null): boolean {
  return outage !== null && ack.start < outage.killedAt && ack.end >= outage.killedAt - AT_RISK_BEFORE_KILL_MS;
}

/** Reports (events or sessions) of one user: every id sent at least once, and when each was acknowledged. */
export interface ReportLedger {
  sent: Set<string>;
  acknowledged: Map<string, Timing>;
}

export interface TrackedSubscription {
  id: string;
  user_id: string;
  origin: 'create' | 'verify';
  /** Verified with a purchase that lapses during the soak: left to the expiry sweeper. */
  lapsesAt: string | null;
  /** Statuses the subscription was acknowledged in, in order, consecutive repeats folded. */
  statuses: SubscriptionStatus[];
  /** Writes acknowledged as committed (the creating write(s) included): the version it must have. */
  acknowledgedWrites: number;
  /** Lifecycle changes answered with an error or not at all: each may or may not have committed. */
  unansweredWrites: number;
  /** Set while the last lifecycle change is unanswered: the status it would have led to. */
  pendingStatus: SubscriptionStatus | null;
  cancelAtPeriodEnd: boolean;
  updatedAt: string | null;
  /** The last acknowledged write (creation or change). */
  lastAcknowledged: Timing;
  /** Read again after the restart because its last acknowledgement was at risk. */
  confirmedAfterRestart: boolean;
  /** That read showed DynamoDB Local had lost the acknowledged write ('gone': the creation itself). */
  lostAtKill: 'change' | 'gone' | null;
}

export interface SoakLedger {
  events: Map<string, ReportLedger>;
  sessions: Map<string, ReportLedger>;
  subscriptions: TrackedSubscription[];
  /** Transaction ids of creates and verifies never acknowledged: they may or may not have a subscription. */
  unacknowledgedPurchases: Set<string>;
}

export interface TrafficOptions {
  baseUrl: string;
  app: TestApp;
  clients: number;
  /** When to stop, on `clock`: asked again and again, so that it may move (e.g. to after a restart). */
  endsAt: () => number;
  /** A test-store purchase of premium_monthly that lapses in `expiresInSeconds`. */
  mintReceipt: (expiresInSeconds: number) => { receipt_data: string; transaction_id: string };
  /** ms since the soak's clock started. */
  clock: () => number;
  /** The outage, once DynamoDB Local answers again after it (null before). */
  outage: () => OutageRecord | null;
  /** A unique prefix of this run's ids. */
  runId: string;
  /** Called with every answered request (progress reports). */
  onSample?: (sample: RequestSample) => void;
}

export interface TrafficResult {
  samples: RequestSample[];
  unexpected: UnexpectedResponse[];
  ledger: SoakLedger;
}

const EVENTS_PER_BATCH = 10;
const USERS_PER_CLIENT = 8;
/** Purchases that lapse are minted only while this much of the soak is left, so that all have lapsed by its end. */
const LAPSE_MARGIN_MS = 30_000;
const MAX_UNEXPECTED_KEPT = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Which request a worker makes next, by weight (lifecycle picks one of its live subscriptions). */
const MIX = [
  ['events', 20],
  ['session', 12],
  ['create', 6],
  ['verify', 8],
  ['lifecycle', 24],
  ['get', 15],
  ['list', 15],
] as const;
type Action = (typeof MIX)[number][0];
const MIX_TOTAL = MIX.reduce((sum, [, weight]) => sum + weight, 0);

function nextAction(): Action {
  let roll = Math.random() * MIX_TOTAL;
  for (const [action, weight] of MIX) {
    roll -= weight;
    if (roll < 0) return action;
  }
  return 'get';
}

interface Answer extends Timing {
  status: number;
  outcome: Outcome;
  body: any;
  retryAfterMs: number;
}

interface LifecycleChange {
  type: RequestType;
  method: 'POST' | 'PUT';
  path: string;
  body: unknown;
  /** The status the change leads to from the current one. */
  leadsTo: SubscriptionStatus;
}

/** The changes valid for a subscription in this state, each of which writes (none is a no-op). */
function validChanges(sub: TrackedSubscription): LifecycleChange[] {
  if (sub.lostAtKill === 'gone') return [];
  const path = `${SUBSCRIPTIONS_BASE}/${sub.id}`;
  const cancel = (body: unknown, leadsTo: SubscriptionStatus): LifecycleChange => ({
    type: 'cancel',
    method: 'POST',
    path: `${path}/cancel`,
    body,
    leadsTo,
  });
  switch (sub.statuses.at(-1)!) {
    case 'pending_verification':
      return [{ type: 'activate', method: 'PUT', path, body: { status: 'active' }, leadsTo: 'active' }];
    case 'active':
      return [
        { type: 'renew', method: 'POST', path: `${path}/renew`, body: {}, leadsTo: 'active' },
        { type: 'renew', method: 'POST', path: `${path}/renew`, body: {}, leadsTo: 'active' },
        {
          type: 'pause',
          method: 'POST',
          path: `${path}/pause`,
          body: { pause_duration: 1, unit: 'days', reason: 'soak' },
          leadsTo: 'paused',
        },
        {
          type: 'pause',
          method: 'POST',
          path: `${path}/pause`,
          body: { pause_duration: 2, unit: 'weeks' },
          leadsTo: 'paused',
        },
        // Cancelling at the period end changes nothing when it is already scheduled: only when it is not.
        ...(sub.cancelAtPeriodEnd ? [] : [cancel({ reason: 'soak' }, 'active')]),
        ...(Math.random() < 0.15 ? [cancel({ immediate: true }, 'cancelled')] : []),
      ];
    case 'paused':
      return [
        { type: 'resume', method: 'POST', path: `${path}/resume`, body: undefined, leadsTo: 'active' },
        { type: 'resume', method: 'POST', path: `${path}/resume`, body: undefined, leadsTo: 'active' },
        // A paused subscription has no running period: cancelling it ends it at once.
        cancel({ reason: 'soak' }, 'cancelled'),
      ];
    default:
      return [];
  }
}

export async function runTraffic(options: TrafficOptions): Promise<TrafficResult> {
  const { app, clock } = options;
  const samples: RequestSample[] = [];
  const unexpected: UnexpectedResponse[] = [];
  const ledger: SoakLedger = {
    events: new Map(),
    sessions: new Map(),
    subscriptions: [],
    unacknowledgedPurchases: new Set(),
  };
  const timeLeft = () => options.endsAt() - clock();

  async function send(
    type: RequestType,
    method: string,
    path: string,
    init: {
      headers: Record<string, string>;
      body?: unknown;
      /** Whether a 404 answers the request, decided once the answer is in (a kill may come between). */
      notFoundIsAnswer?: boolean | (() => boolean);
    },
  ): Promise<Answer> {
    const start = clock();
    let status = 0;
    let text = '';
    let retryAfter: string | null = null;
    let rateLimitHeader = false;
    try {
      const response = await fetch(`${options.baseUrl}${path}`, {
        method,
        headers: { ...init.headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      rateLimitHeader = response.headers.has('ratelimit');
      text = await response.text();
    } catch (error) {
      text = String(error);
    }
    const end = clock();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const retryable =
      status === 503 && retryAfter !== null && (body?.retryable === true || body?.error?.retryable === true);
    const notFoundIsAnswer =
      typeof init.notFoundIsAnswer === 'function' ? init.notFoundIsAnswer() : init.notFoundIsAnswer === true;
    const answered = (status >= 200 && status < 300) || (status === 404 && notFoundIsAnswer);
    const outcome: Outcome = answered
      ? 'ok'
      : retryable
        ? 'retryable'
        : status === 0
          ? 'network_error'
          : status < 500
            ? 'client_error'
            : 'server_error';
    const sample: RequestSample = { type, start, end, status, outcome, rateLimitHeader };
    samples.push(sample);
    options.onSample?.(sample);
    if (outcome !== 'ok' && outcome !== 'retryable' && unexpected.length < MAX_UNEXPECTED_KEPT) {
      unexpected.push({ type, method, path, status, body: text.slice(0, 500), at: end });
    }
    return { start, end, status, outcome, body, retryAfterMs: retryable ? Number(retryAfter) * 1000 : 0 };
  }

  /** Sends an idempotent request again after each retryable error (honouring Retry-After) until answered or out of time. */
  async function untilAnswered(attempt: () => Promise<Answer>): Promise<Answer> {
    for (;;) {
      const answer = await attempt();
      if (answer.outcome !== 'retryable' || timeLeft() <= 0) return answer;
      await sleep(Math.min(answer.retryAfterMs, Math.max(0, timeLeft())));
      if (timeLeft() <= 0) return answer;
    }
  }

  const bearer = { authorization: `Bearer ${app.secretKey}` };

  async function client(index: number): Promise<void> {
    const users = Array.from({ length: USERS_PER_CLIENT }, (_, u) => `${options.runId}-c${index}-u${u}`);
    const owned: TrackedSubscription[] = [];
    let sequence = 0;
    const nextId = (kind: string) => `${options.runId}-c${index}-${kind}${++sequence}`;
    const reportLedger = (map: Map<string, ReportLedger>, user: string) => {
      const entry = map.get(user) ?? { sent: new Set(), acknowledged: new Map() };
      map.set(user, entry);
      return entry;
    };

    const reportEvents = async () => {
      const user = pick(users);
      const entry = reportLedger(ledger.events, user);
      const sessionId = nextId('s');
      const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => {
        const eventId = nextId('e');
        entry.sent.add(eventId);
        return {
          name: i === 0 ? 'feature_used' : 'screen_view',
          user,
          sessionId,
          eventId,
          extra: { screen: 'home', feature_name: `f${i % 3}` },
        };
      });
      const answer = await untilAnswered(() =>
        send('events', 'POST', '/v2/users/report/events', { headers: mobileHeaders(app, user), body: { events } }),
      );
      if (answer.outcome === 'ok') for (const { eventId } of events) entry.acknowledged.set(eventId, answer);
    };

    const reportSession = async () => {
      const user = pick(users);
      const entry = reportLedger(ledger.sessions, user);
      const sessionId = nextId('session');
      entry.sent.add(sessionId);
      const body = { sessionId, startTime: Date.now() - 60_000, duration: 30 + Math.floor(Math.random() * 600) };
      const answer = await untilAnswered(() =>
        send('session', 'POST', '/v2/sessions/report', { headers: mobileHeaders(app, user), body }),
      );
      if (answer.outcome === 'ok') entry.acknowledged.set(sessionId, answer);
    };

    const tracked = (
      fields: Pick<
        TrackedSubscription,
        'id' | 'user_id' | 'origin' | 'lapsesAt' | 'statuses' | 'acknowledgedWrites' | 'lastAcknowledged'
      >,
    ): TrackedSubscription => ({
      ...fields,
      unansweredWrites: 0,
      pendingStatus: null,
      cancelAtPeriodEnd: false,
      updatedAt: null,
      confirmedAfterRestart: false,
      lostAtKill: null,
    });

    const create = async () => {
      const transactionId = nextId('txn');
      const user = pick(users);
      const body = {
        user_id: user,
        product_id: 'premium_monthly',
        platform: pick(['ios', 'android', 'web'] as const),
        transaction_id: transactionId,
      };
      // A transaction id makes the create idempotent: a retry answers the record the first attempt made.
      const answer = await untilAnswered(() => send('create', 'POST', SUBSCRIPTIONS_BASE, { headers: bearer, body }));
      if (answer.outcome !== 'ok') {
        ledger.unacknowledgedPurchases.add(transactionId);
        return;
      }
      const data = answer.body.data as { id: string; status: SubscriptionStatus };
      const sub = tracked({
        id: data.id,
        user_id: user,
        origin: 'create',
        lapsesAt: null,
        statuses: [data.status],
        acknowledgedWrites: 1,
        lastAcknowledged: answer,
      });
      owned.push(sub);
      ledger.subscriptions.push(sub);
    };

    const verify = async () => {
      const lapses = timeLeft() > LAPSE_MARGIN_MS && Math.random() < 0.4;
      const expiresIn = lapses ? 5 + Math.floor(Math.random() * 15) : 30 * 86_400;
      const { receipt_data, transaction_id } = options.mintReceipt(expiresIn);
      const user = pick(users);
      // Verifying the same receipt again for the same user answers the same result: safe to retry.
      const answer = await untilAnswered(() =>
        send('verify', 'POST', `${SUBSCRIPTIONS_BASE}/verify`, {
          headers: bearer,
          body: { platform: 'ios', receipt_data, user_id: user, transaction_id },
        }),
      );
      if (answer.outcome !== 'ok') {
        ledger.unacknowledgedPurchases.add(transaction_id);
        return;
      }
      const data = answer.body.data as { subscription_id: string; expires_at: string };
      // The purchase is recorded as pending_verification and activated in one write: one status change.
      const sub = tracked({
        id: data.subscription_id,
        user_id: user,
        origin: 'verify',
        lapsesAt: lapses ? data.expires_at : null,
        statuses: ['pending_verification', 'active'],
        acknowledgedWrites: 1,
        lastAcknowledged: answer,
      });
      ledger.subscriptions.push(sub);
      if (!lapses) owned.push(sub);
    };

    /** What an acknowledged detail says about a subscription this worker owns. */
    const learn = (
      sub: TrackedSubscription,
      detail: { status: SubscriptionStatus; cancel_at_period_end: boolean; updated_at: string },
    ) => {
      if (sub.statuses.at(-1) !== detail.status) sub.statuses.push(detail.status);
      sub.cancelAtPeriodEnd = detail.cancel_at_period_end;
      sub.updatedAt = detail.updated_at;
    };

    /** Whether the subscription must be read before it is relied on: a change went unanswered, or its last acknowledgement was at risk. */
    const needsReading = (sub: TrackedSubscription) =>
      sub.pendingStatus !== null ||
      (!sub.confirmedAfterRestart && acknowledgedAtRisk(sub.lastAcknowledged, options.outage()));

    /** Reads the subscription until answered and takes what the table says as its state. */
    const readAgain = async (sub: TrackedSubscription): Promise<void> => {
      const atRisk = !sub.confirmedAfterRestart && acknowledgedAtRisk(sub.lastAcknowledged, options.outage());
      const answer = await untilAnswered(() =>
        send('get', 'GET', `${SUBSCRIPTIONS_BASE}/${sub.id}`, { headers: bearer, notFoundIsAnswer: atRisk }),
      );
      if (answer.outcome !== 'ok') return;
      if (atRisk) {
        sub.confirmedAfterRestart = true;
        if (answer.status === 404) {
          sub.lostAtKill = 'gone';
          return;
        }
        const detail = answer.body.data as { status: SubscriptionStatus; updated_at: string };
        // The acknowledged write is there if the detail is the one it answered (or, without one, shows its status).
        const acknowledgedState =
          sub.pendingStatus === null && sub.updatedAt !== null
            ? sub.updatedAt === detail.updated_at
            : [sub.statuses.at(-1), sub.pendingStatus].includes(detail.status);
        if (!acknowledgedState) sub.lostAtKill = 'change';
      }
      learn(sub, answer.body.data);
      sub.pendingStatus = null;
    };

    const live = () => owned.filter((sub) => validChanges(sub).length > 0 || needsReading(sub));

    const changeLifecycle = async () => {
      const candidates = live();
      if (candidates.length === 0) return Math.random() < 0.5 ? create() : verify();
      const sub = pick(candidates);
      if (needsReading(sub)) return readAgain(sub);
      const change = pick(validChanges(sub));
      const answer = await send(change.type, change.method, change.path, { headers: bearer, body: change.body });
      if (answer.outcome === 'ok') {
        sub.acknowledgedWrites += 1;
        sub.lastAcknowledged = answer;
        sub.confirmedAfterRestart = false;
        learn(sub, answer.body.data);
      } else {
        sub.unansweredWrites += 1;
        sub.pendingStatus = change.leadsTo;
      }
    };

    const readDetail = async () => {
      const readable = owned.filter((sub) => sub.lostAtKill !== 'gone');
      if (readable.length === 0) return list();
      const sub = pick(readable);
      if (needsReading(sub)) return readAgain(sub);
      // A plain read: the worker already knows the state of what it owns. Sent before a kill, it may be
      // answered after the restart (the SDK's retries carry it across): a 404 then finds a lost creation.
      const answer = await send('get', 'GET', `${SUBSCRIPTIONS_BASE}/${sub.id}`, {
        headers: bearer,
        notFoundIsAnswer: () =>
          !sub.confirmedAfterRestart && acknowledgedAtRisk(sub.lastAcknowledged, options.outage()),
      });
      if (answer.outcome === 'ok' && answer.status === 404) {
        sub.confirmedAfterRestart = true;
        sub.lostAtKill = 'gone';
      }
    };

    const list = async () => {
      const query = pick([
        `user_id=${encodeURIComponent(pick(users))}`,
        'status=active&limit=20',
        'status=paused&limit=10',
        'page=2&limit=10',
        'platform=android&status=active',
      ]);
      await send('list', 'GET', `${SUBSCRIPTIONS_BASE}?${query}`, { headers: bearer });
    };

    const actions: Record<Action, () => Promise<void>> = {
      events: reportEvents,
      session: reportSession,
      create,
      verify,
      lifecycle: changeLifecycle,
      get: readDetail,
      list,
    };
    while (timeLeft() > 0) await actions[nextAction()]();
    // Unanswered changes still open at the end are left to the reconciliation (either state is right).
  }

  await Promise.all(Array.from({ length: options.clients }, (_, index) => client(index)));
  return { samples, unexpected, ledger };
}
