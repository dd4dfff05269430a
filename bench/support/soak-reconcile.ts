/**
 * The soak's reconciliation: reads the whole table once and holds it against what the clients
 * were told (the ledger) and what the webhook receiver got. Nothing acknowledged may be missing,
 * nothing may exist that no client sent, and every status change (announced on the stream) must have reached
 * the receiver exactly once, correctly signed. Import it only once the data layer's environment
 * (DYNAMODB_ENDPOINT, TABLE_NAME) is set.
 */

import { isDeepStrictEqual } from 'node:util';
import { countCells } from '../../lib/data/list-counters.js';
import { scanPages } from '../../lib/data/query.js';
import type { FacetValues } from '../../lib/data/table-keys.js';
import type { SubscriptionStatus } from '../../lib/domain/subscription-state.js';
import { STATUS_CHANGED, type StatusChangedPayload } from '../../lib/events/schemas.js';
import { streamEvents } from '../../test/support/outbox.js';
import type { ReceivedWebhook } from '../../test/support/webhook-receiver.js';
import {
  acknowledgedAtRisk,
  type OutageRecord,
  type SoakLedger,
  type Timing,
  type TrackedSubscription,
} from './soak-traffic.js';

type Item = Record<string, any>;

export interface TableSnapshot {
  /** event ids by user */
  events: Map<string, Set<string>>;
  /** session ids by user */
  sessions: Map<string, Set<string>>;
  /** the profile's total_sessions by user */
  totalSessions: Map<string, number>;
  subscriptions: Map<string, Item>;
  /** transaction id of each subscription's payment item, by subscription id */
  paymentTransactions: Map<string, string | null>;
  outbox: Map<string, { subscriptionId: string; payload: StatusChangedPayload }>;
  deliveries: Map<string, { status: string; attempts: number }>;
  counters: Map<string, number>;
  items: number;
  readMs: number;
}

export interface ReconciliationCheck {
  name: string;
  /** How many things were checked. */
  checked: number;
  mismatches: string[];
  /** How many mismatches the check tolerates (0 unless stated). */
  tolerated?: number;
}

/** Acknowledged writes missing from the table that DynamoDB Local may have lost at its SIGKILL, apart from real mismatches. */
class Losses {
  readonly atKill: string[] = [];
  constructor(private readonly outage: OutageRecord | null) {}
  /** Files a missing acknowledged write as lost at the kill when its acknowledgement was at risk; true if it did. */
  excuse(ack: Timing, what: string): boolean {
    if (!acknowledgedAtRisk(ack, this.outage)) return false;
    this.atKill.push(what);
    return true;
  }
}

/** How long after a purchase lapses the sweeper may take to expire it (a few sweep intervals). */
export const lapseGraceMs = (sweepIntervalSeconds: number) => 3 * sweepIntervalSeconds * 1000 + 2000;

/** Reads every item (consistent reads, in parallel segments) and sorts out the ones the checks need. */
export async function readTable(appId: string): Promise<TableSnapshot> {
  const started = Date.now();
  const snapshot: TableSnapshot = {
    events: new Map(),
    sessions: new Map(),
    totalSessions: new Map(),
    subscriptions: new Map(),
    paymentTransactions: new Map(),
    outbox: new Map(),
    deliveries: new Map(),
    counters: new Map(),
    items: 0,
    readMs: 0,
  };
  const addTo = (map: Map<string, Set<string>>, key: string, value: string) => {
    const set = map.get(key) ?? new Set<string>();
    map.set(key, set.add(value));
  };
  const segments = 4;
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      for await (const page of scanPages({ ConsistentRead: true, Segment: segment, TotalSegments: segments })) {
        for (const item of page.Items ?? []) {
          snapshot.items += 1;
          const [kind, , ...rest] = String(item.pk).split('#');
          const owner = rest.join('#');
          if (kind === 'EVENTS') addTo(snapshot.events, owner, String(item.sk).replace(/^EVT#id:/, ''));
          else if (kind === 'SESSIONS') addTo(snapshot.sessions, owner, String(item.sk));
          else if (kind === 'USER' && item.sk === 'PROFILE')
            snapshot.totalSessions.set(owner, Number(item.total_sessions ?? 0));
          else if (kind === 'SUB' && item.sk === 'SUB') snapshot.subscriptions.set(item.id, item);
          else if (kind === 'SUB' && item.sk === 'PAYMENT')
            snapshot.paymentTransactions.set(owner, item.transaction_id ?? null);
          else if (kind === 'DELIVERY')
            snapshot.deliveries.set(item.event_id, { status: item.status, attempts: item.attempts });
          else if (kind === 'COUNT' && String(item.pk) === `COUNT#${appId}`)
            for (const [attribute, count] of Object.entries(item))
              if (attribute.startsWith('count#')) snapshot.counters.set(`${item.sk} ${attribute}`, Number(count));
        }
      }
    }),
  );
  // The status changes the writes announced, as the publisher reads them from the stream.
  for (const event of await streamEvents())
    if (event.app_id === appId && event.payload.event === STATUS_CHANGED)
      snapshot.outbox.set(event.event_id, {
        subscriptionId: event.payload.data.subscription_id,
        payload: event.payload as StatusChangedPayload,
      });
  snapshot.readMs = Date.now() - started;
  return snapshot;
}

const acceptedById = (webhooks: readonly ReceivedWebhook[]) => {
  const byId = new Map<string, ReceivedWebhook[]>();
  for (const webhook of webhooks) {
    if (!webhook.verified || webhook.answeredWith < 200 || webhook.answeredWith >= 300) continue;
    byId.set(webhook.id, [...(byId.get(webhook.id) ?? []), webhook]);
  }
  return byId;
};

/** What the notification pipeline and the sweeper still owe: the drain waits until this is empty. */
export function outstandingWork(
  snapshot: TableSnapshot,
  ledger: SoakLedger,
  webhooks: readonly ReceivedWebhook[],
  now: number,
  sweepIntervalSeconds: number,
): string[] {
  const accepted = acceptedById(webhooks);
  const owed: string[] = [];
  for (const eventId of snapshot.outbox.keys()) {
    if (!accepted.has(eventId)) owed.push(`webhook ${eventId}`);
    else if (snapshot.deliveries.get(eventId)?.status !== 'delivered') owed.push(`delivery record ${eventId}`);
  }
  for (const sub of ledger.subscriptions) {
    if (
      sub.lapsesAt &&
      Date.parse(sub.lapsesAt) + lapseGraceMs(sweepIntervalSeconds) < now &&
      snapshot.subscriptions.get(sub.id)?.status !== 'expired'
    ) {
      owed.push(`expiry of ${sub.id}`);
    }
  }
  return owed;
}

/** The chain of status changes of one subscription as its outbox items tell it, oldest first; null if they do not form one chain. */
function chainOf(events: StatusChangedPayload[]): SubscriptionStatus[] | null {
  const remaining = [...events].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  const chain: SubscriptionStatus[] = ['pending_verification'];
  while (remaining.length > 0) {
    const next = remaining.findIndex((event) => event.data.old_status === chain.at(-1));
    if (next < 0) return null;
    chain.push(remaining.splice(next, 1)[0]!.data.new_status);
  }
  return chain;
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, i) => value === b[i]);

/** Statuses a tracked subscription may be in now: its last acknowledged one, or where an unanswered change led. */
function allowedStatuses(sub: TrackedSubscription, now: number, sweepIntervalSeconds: number): SubscriptionStatus[] {
  const last = sub.statuses.at(-1)!;
  if (sub.lapsesAt)
    return Date.parse(sub.lapsesAt) + lapseGraceMs(sweepIntervalSeconds) < now ? ['expired'] : [last, 'expired'];
  return sub.pendingStatus ? [last, sub.pendingStatus] : [last];
}

function checkSubscriptions(
  snapshot: TableSnapshot,
  ledger: SoakLedger,
  byId: Map<string, StatusChangedPayload[]>,
  losses: Losses,
  now: number,
  sweepIntervalSeconds: number,
): [ReconciliationCheck, ReconciliationCheck] {
  const state: ReconciliationCheck = {
    name: 'acknowledged subscriptions exist in their last acknowledged state (status, version, updated_at)',
    checked: 0,
    mismatches: [],
  };
  const chains: ReconciliationCheck = {
    name: "each subscription's outbox items form one chain of status changes ending at its status",
    checked: 0,
    mismatches: [],
  };
  const tracked = new Map(ledger.subscriptions.map((sub) => [sub.id, sub]));
  for (const sub of ledger.subscriptions) {
    state.checked += 1;
    const stored = snapshot.subscriptions.get(sub.id);
    const found: string[] = [];
    if (sub.lostAtKill === 'gone') {
      // Its client read it after the restart and was told it does not exist.
      if (stored) state.mismatches.push(`${sub.id}: answered 404 after the restart, yet in the table`);
      else losses.atKill.push(`${sub.id}: acknowledged ${sub.origin}, gone after the restart`);
      continue;
    }
    if (!stored) {
      found.push(`acknowledged (${sub.origin}) but not in the table`);
    } else {
      const allowed = allowedStatuses(sub, now, sweepIntervalSeconds);
      if (!allowed.includes(stored.status)) found.push(`status ${stored.status}, expected ${allowed.join(' or ')}`);
      const chain = chainOf(byId.get(sub.id) ?? []);
      if (sub.lostAtKill === 'change') {
        losses.atKill.push(
          `${sub.id}: an acknowledged change was gone after the restart (now ${stored.status}, version ${stored.version})`,
        );
      } else if (sub.lapsesAt) {
        // Recorded and activated in one write, then expired by the sweeper (or activated already lapsed): a write per status change.
        if (chain && stored.version !== chain.length - 1)
          found.push(`version ${stored.version} after ${chain.length - 1} status changes`);
      } else if (sub.unansweredWrites === 0) {
        if (stored.version !== sub.acknowledgedWrites)
          found.push(`version ${stored.version}, ${sub.acknowledgedWrites} writes acknowledged`);
        if (chain && !same(chain, sub.statuses))
          found.push(`notified ${chain.join('->')}, acknowledged ${sub.statuses.join('->')}`);
      } else if (
        stored.version < sub.acknowledgedWrites ||
        stored.version > sub.acknowledgedWrites + sub.unansweredWrites
      ) {
        found.push(
          `version ${stored.version}, ${sub.acknowledgedWrites} writes acknowledged and ${sub.unansweredWrites} unanswered`,
        );
      }
      // The worker's last acknowledged detail is the last write unless a change went unanswered after it.
      if (sub.updatedAt && sub.pendingStatus === null && stored.updated_at !== sub.updatedAt)
        found.push(`updated_at ${stored.updated_at}, last acknowledged ${sub.updatedAt}`);
    }
    if (found.length === 0) continue;
    // Never read again after the restart, with its last acknowledgement at risk: DynamoDB Local may have lost that write.
    if (!sub.confirmedAfterRestart && losses.excuse(sub.lastAcknowledged, `${sub.id}: ${found.join('; ')}`)) continue;
    state.mismatches.push(...found.map((what) => `${sub.id}: ${what}`));
  }
  for (const [id, stored] of snapshot.subscriptions) {
    chains.checked += 1;
    const chain = chainOf(byId.get(id) ?? []);
    if (!chain)
      chains.mismatches.push(
        `${id}: outbox items ${JSON.stringify((byId.get(id) ?? []).map((e) => `${e.data.old_status}->${e.data.new_status}`))} are not one chain from pending_verification`,
      );
    else if (chain.at(-1) !== stored.status)
      chains.mismatches.push(`${id}: notified ${chain.join('->')}, stored status ${stored.status}`);
    if (tracked.has(id)) continue;
    // Not acknowledged to anyone: must come from a create or verify whose answer was an error.
    const transactionId = snapshot.paymentTransactions.get(id);
    if (!transactionId || !ledger.unacknowledgedPurchases.has(transactionId))
      state.mismatches.push(`${id}: in the table, but no client created it`);
  }
  return [state, chains];
}

function checkReports(
  name: string,
  ledgers: SoakLedger['events'],
  stored: Map<string, Set<string>>,
  losses: Losses,
): ReconciliationCheck {
  const check: ReconciliationCheck = { name, checked: 0, mismatches: [] };
  for (const [user, { sent, acknowledged }] of ledgers) {
    const found = stored.get(user) ?? new Set<string>();
    check.checked += acknowledged.size;
    for (const [id, ack] of acknowledged) {
      if (!found.has(id) && !losses.excuse(ack, `${user}/${id}: acknowledged, not stored`))
        check.mismatches.push(`${user}/${id}: acknowledged, not stored`);
    }
    for (const id of found) if (!sent.has(id)) check.mismatches.push(`${user}/${id}: stored, never sent`);
  }
  for (const user of stored.keys())
    if (!ledgers.has(user)) check.mismatches.push(`${user}: reports stored for a user no client reported for`);
  return check;
}

export function reconcile(
  snapshot: TableSnapshot,
  ledger: SoakLedger,
  webhooks: readonly ReceivedWebhook[],
  appId: string,
  outage: OutageRecord | null,
  now: number,
  sweepIntervalSeconds: number,
): ReconciliationCheck[] {
  const losses = new Losses(outage);
  const events = checkReports(
    'acknowledged events stored (once: keyed by eventId), none that was never sent',
    ledger.events,
    snapshot.events,
    losses,
  );
  const sessions = checkReports(
    'acknowledged sessions stored, none that was never sent',
    ledger.sessions,
    snapshot.sessions,
    losses,
  );
  const sessionCounts: ReconciliationCheck = {
    name: "each user's total_sessions counts every stored session once",
    checked: 0,
    mismatches: [],
  };
  for (const [user, ids] of snapshot.sessions) {
    sessionCounts.checked += 1;
    const counted = snapshot.totalSessions.get(user) ?? 0;
    if (counted !== ids.size)
      sessionCounts.mismatches.push(`${user}: total_sessions ${counted}, ${ids.size} sessions stored`);
  }

  const byId = new Map<string, StatusChangedPayload[]>();
  for (const { subscriptionId, payload } of snapshot.outbox.values())
    byId.set(subscriptionId, [...(byId.get(subscriptionId) ?? []), payload]);
  const [subscriptions, chains] = checkSubscriptions(snapshot, ledger, byId, losses, now, sweepIntervalSeconds);

  const accepted = acceptedById(webhooks);
  const notifications: ReconciliationCheck = {
    name: 'every outbox item delivered exactly once (by webhook-id), signed, as stored; delivery recorded',
    checked: 0,
    mismatches: [],
  };
  for (const [eventId, { payload }] of snapshot.outbox) {
    notifications.checked += 1;
    const deliveries = accepted.get(eventId) ?? [];
    if (deliveries.length !== 1)
      notifications.mismatches.push(`${eventId}: ${deliveries.length} successful deliveries`);
    else if (!isDeepStrictEqual(deliveries[0]!.payload, payload))
      notifications.mismatches.push(`${eventId}: delivered body differs from the outbox item`);
    const record = snapshot.deliveries.get(eventId);
    if (record?.status !== 'delivered')
      notifications.mismatches.push(
        `${eventId}: delivery record ${record ? `${record.status} after ${record.attempts} attempts` : 'missing'}`,
      );
  }
  for (const id of accepted.keys())
    if (!snapshot.outbox.has(id)) notifications.mismatches.push(`${id}: delivered, but no outbox item has this id`);
  for (const webhook of webhooks)
    if (!webhook.verified) notifications.mismatches.push(`${webhook.id}: signature did not verify`);

  const counters: ReconciliationCheck = {
    name: 'list counters equal the subscriptions they count',
    checked: 0,
    mismatches: [],
  };
  const expected = new Map<string, number>();
  for (const stored of snapshot.subscriptions.values()) {
    const values: FacetValues = { status: stored.status, product_id: stored.product_id, platform: stored.platform };
    for (const cell of countCells(appId, values)) {
      const id = `${cell.key.sk} ${cell.attribute}`;
      expected.set(id, (expected.get(id) ?? 0) + 1);
    }
  }
  for (const sk of new Set([...expected.keys(), ...snapshot.counters.keys()])) {
    counters.checked += 1;
    const [want, have] = [expected.get(sk) ?? 0, snapshot.counters.get(sk) ?? 0];
    if (want !== have) counters.mismatches.push(`${sk}: counter ${have}, ${want} subscriptions`);
  }
  const lostAtKill: ReconciliationCheck = {
    name: 'acknowledged writes lost by DynamoDB Local at its SIGKILL (it acknowledges a transaction ms before it is durable; at most its last one)',
    checked: outage ? 1 : 0,
    mismatches: losses.atKill,
    tolerated: outage ? 1 : 0,
  };
  return [events, sessions, sessionCounts, subscriptions, chains, notifications, counters, lostAtKill];
}
