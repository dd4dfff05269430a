/**
 * What one app's mobile reports may cost (pure): events per minute, and stored bytes, counted per
 * app on one quota item (lib/data/report-quotas.ts); and the report types one user may keep.
 *
 * Stored bytes are bounded through what enters: every report expires EVENT_RETENTION_DAYS after it
 * arrives (TTL), so an allowance of storedBytes / retentionDays a day keeps what an app stores
 * within about storedBytes (one day more, and DynamoDB's TTL deletes up to a few days late).
 * Windows open at the first report after the previous one closed, as the rate limit's do.
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

/** Per counter: add to its open window, open a new one with this charge, or leave it alone. */
export type QuotaWrite = 'add' | 'open' | 'none';

export type QuotaPlan =
  | { allowed: true; writes: Record<QuotaCounter, QuotaWrite> }
  | { allowed: false; counter: QuotaCounter; limit: number; retryAfterSeconds: number };

/**
 * Whether the charge fits what the state says of the app's windows, and how to count it. A
 * window known open whose room the charge exceeds refuses it (its count only grows until it
 * closes, so a stale state never refuses wrongly); the refused charge is not counted. A charge
 * larger than a whole window is refused for a window's length.
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
    writes[counter] = open ? 'add' : 'open';
  }
  return { allowed: true, writes };
}
