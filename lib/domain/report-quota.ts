/**
 * What one app's mobile reports may cost (pure): events per minute, and stored bytes, counted per
 * app on one quota item (lib/data/report-quotas.ts); and the report types one user may keep.
 *
 * Stored bytes are bounded through what enters: every report expires EVENT_RETENTION_DAYS after it
 * arrives (TTL), so an allowance of storedBytes / retentionDays a day keeps what an app stores
 * within about storedBytes (one day more, and DynamoDB's TTL deletes up to a few days late).
 * Windows open at the first report after the previous one closed, as the rate limit's do.
 *
 * Counting is amortised per function instance: an instance decides on the item as it last saw it
 * plus what it has accepted and not yet written (its unflushed amounts), and writes those in one
 * update only when planQuotaFlush says so. So the quota holds to within (concurrent instances x
 * flush share) of its limit, plus up to one share each of instances recycled before writing.
 */

export interface ReportQuotas {
  /** Events one app may report per minute, all its users together. */
  eventsPerMinute: number;
  /** Report bytes (as sent, each stored copy counted) one app may keep stored. */
  storedBytes: number;
  /** Distinct `/report/{type}` types one user may report (each keeps a latest-report item). */
  typesPerUser: number;
}

/**
 * Sized for an app of about 75,000 daily users at 50 events of 300 bytes each (3.75 million
 * events, about 1.1 GB a day), and to bound what a holder of the public sdk key can make one app
 * cost (docs/security.md#report-quotas).
 */
export const DEFAULT_REPORT_QUOTAS: Readonly<ReportQuotas> = {
  eventsPerMinute: 10_000,
  storedBytes: 100 * 1024 ** 3,
  typesPerUser: 32,
};

export const QUOTA_COUNTERS = ['events', 'bytes'] as const;
export type QuotaCounter = (typeof QUOTA_COUNTERS)[number];

/** Length of each counter's window. */
export const QUOTA_WINDOW_SECONDS: Readonly<Record<QuotaCounter, number>> = { events: 60, bytes: 86_400 };

/** What one window of each counter allows. */
export type QuotaLimits = Record<QuotaCounter, number>;

export function quotaLimits(quotas: ReportQuotas, retentionDays: number): QuotaLimits {
  return {
    events: quotas.eventsPerMinute,
    bytes: Math.floor(quotas.storedBytes / Math.max(1, retentionDays)),
  };
}

/** What one request reports. */
export type QuotaCharge = Record<QuotaCounter, number>;

/** One counter's window as stored: used so far, and when it closes (epoch ms). */
export interface QuotaWindow {
  used: number;
  endsAt: number;
}

export type QuotaState = Partial<Record<QuotaCounter, QuotaWindow>>;

/**
 * Per counter: add to its open window, open a new one with this charge, join whatever window is
 * open (the instance has not seen the item yet), or leave it alone.
 */
export type QuotaWrite = 'add' | 'open' | 'join' | 'none';

export type QuotaPlan =
  | { allowed: true; writes: Record<QuotaCounter, QuotaWrite> }
  | { allowed: false; counter: QuotaCounter; limit: number; retryAfterSeconds: number };

/**
 * Whether the charge fits what the state says of the app's windows, and how to count it. A
 * window known open whose room the charge exceeds refuses it (its count only grows until it
 * closes, so a stale state never refuses wrongly); the refused charge is not counted. A charge
 * larger than a whole window is refused for a window's length.
 *
 * `undefined` is an instance that has not seen the item yet: it joins the window open now, as
 * an app's windows usually are when a new instance starts (instances start as traffic rises), so
 * its first report costs one write, not a refused `open` and a second write. Where no window is
 * open the join's condition fails, and the item it returns decides again.
 */
export function planQuotaCharge(
  state: QuotaState | undefined,
  charge: QuotaCharge,
  limits: QuotaLimits,
  nowMs: number,
): QuotaPlan {
  const writes = { events: 'none', bytes: 'none' } as Record<QuotaCounter, QuotaWrite>;
  for (const counter of QUOTA_COUNTERS) {
    const amount = charge[counter];
    if (amount <= 0) continue;
    const limit = limits[counter];
    const window = state?.[counter];
    const open = window !== undefined && window.endsAt > nowMs;
    if (amount > limit || (open && window.used + amount > limit)) {
      const retryAfterSeconds = open
        ? Math.max(1, Math.ceil((window.endsAt - nowMs) / 1000))
        : QUOTA_WINDOW_SECONDS[counter];
      return { allowed: false, counter, limit, retryAfterSeconds };
    }
    writes[counter] = state === undefined ? 'join' : open ? 'add' : 'open';
  }
  return { allowed: true, writes };
}

/**
 * Each counter's flush share is this fraction of its limit (1 %): small enough that many
 * concurrent instances each holding up to a share barely pass the limit (100 instances: twice
 * it at most), large enough that a busy app writes its quota item once per 1 % of its limit per
 * instance instead of once per report. At least 1, so a small limit counts every report exactly.
 */
export const QUOTA_FLUSH_DIVISOR = 100;

/** What an instance may accept of a counter without writing it. */
export const flushShare = (limit: number): number => Math.max(1, Math.floor(limit / QUOTA_FLUSH_DIVISOR));

/**
 * Longest an instance goes on deciding on what it last wrote: a few seconds keeps its view of the
 * other instances' counts fresh and its unflushed amounts small when reports slow down, and costs
 * at most one write per app per instance in that time.
 */
export const QUOTA_FLUSH_AGE_MS = 5_000;

/** Amounts accepted by this instance and not yet written, per counter. */
export type QuotaAmounts = Record<QuotaCounter, number>;

/** What one instance knows of an app's windows: the item as last read or written, plus its own unflushed amounts. */
export interface LocalQuota {
  state: QuotaState;
  /** Accepted and not written, each belonging to the counter's window in `state`. */
  unflushed: QuotaAmounts;
  /** When this instance last wrote the item (epoch ms); undefined before its first write. */
  writtenAt?: number;
}

export const NO_AMOUNTS: Readonly<QuotaAmounts> = { events: 0, bytes: 0 };

/** The windows as this instance counts them: the item's counts plus its own unflushed amounts (of open windows). */
export function withUnflushed(local: LocalQuota, nowMs: number): QuotaState {
  const state: QuotaState = {};
  for (const counter of QUOTA_COUNTERS) {
    const window = local.state[counter];
    if (window === undefined) continue;
    const unflushed = window.endsAt > nowMs ? local.unflushed[counter] : 0;
    state[counter] = { used: window.used + unflushed, endsAt: window.endsAt };
  }
  return state;
}

/**
 * Unflushed amounts carried from one view of the item to a newer one: kept where the counter's
 * window is the same open window, dropped where it closed (they counted against a window that
 * no longer limits anything).
 */
export function carriedUnflushed(local: LocalQuota, fresh: QuotaState, nowMs: number): QuotaAmounts {
  const carried = { ...NO_AMOUNTS };
  for (const counter of QUOTA_COUNTERS) {
    const before = local.state[counter];
    const after = fresh[counter];
    if (before && after && before.endsAt === after.endsAt && after.endsAt > nowMs)
      carried[counter] = local.unflushed[counter];
  }
  return carried;
}

/** Two sets of amounts added up, per counter. */
export const addAmounts = (a: QuotaAmounts, b: QuotaAmounts): QuotaAmounts =>
  Object.fromEntries(QUOTA_COUNTERS.map((counter) => [counter, a[counter] + b[counter]])) as QuotaAmounts;

/** Why an allowed charge is written now: a window to open, a share reached, or a view too old. */
export type QuotaFlushReason = 'window' | 'share' | 'age';

/**
 * Whether an allowed charge is written now, and why (pure). `pending`: the unflushed amounts with
 * this charge added. A window this instance knows no open one of is opened or joined at once (so
 * every instance's first report, and the first after a window closes, is counted exactly); a counter
 * whose pending amount reaches its share is written; and so is anything once the instance's last
 * write is QUOTA_FLUSH_AGE_MS old. Otherwise the charge waits, unwritten, in `pending`.
 */
export function planQuotaFlush(
  writes: Record<QuotaCounter, QuotaWrite>,
  pending: QuotaAmounts,
  limits: QuotaLimits,
  writtenAt: number | undefined,
  nowMs: number,
): QuotaFlushReason | undefined {
  if (QUOTA_COUNTERS.some((counter) => writes[counter] === 'open' || writes[counter] === 'join')) return 'window';
  if (QUOTA_COUNTERS.some((counter) => pending[counter] >= flushShare(limits[counter]))) return 'share';
  if (
    QUOTA_COUNTERS.some((counter) => pending[counter] > 0) &&
    (writtenAt === undefined || nowMs - writtenAt >= QUOTA_FLUSH_AGE_MS)
  )
    return 'age';
  return undefined;
}
