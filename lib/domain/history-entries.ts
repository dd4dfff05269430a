/**
 * A subscription's history: one entry per write of its state, saying what changed, when, and what
 * caused it. The cause rides on the state item each write puts; the aggregator turns each write's
 * old and new images into an entry (lib/events/aggregator.ts), keyed by the write's version.
 */
import { cursorOfAnotherQuery, decodeCursorFields, encodeCursorFields } from './pagination.js';

/** What made a change: an API call, a verified purchase, a store's notification, or the clock (the sweeper). */
export const CHANGE_CAUSES = ['api', 'verification', 'store_notification', 'sweeper'] as const;
export type ChangeCauseKind = (typeof CHANGE_CAUSES)[number];

/** Stored on the state item by the write it describes (`version`: only that write's). */
export interface ChangeCause {
  by: ChangeCauseKind;
  /** The operation: `create`, a lifecycle command (`renew`, `cancel`, `sync`, `time_passes`, ...). */
  action: string;
  /** A store notification's type and subtype as the store sent them (`DID_RENEW`, `DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED`). */
  notification?: string;
  version: number;
}

/** A store notification's type as history records it. */
export const notificationTypeOf = (notification: { type: string; subtype: string | null }): string =>
  notification.subtype ? `${notification.type}/${notification.subtype}` : notification.type;

/** Fields whose change an entry lists, in this order. No user_id: erasing a customer leaves history as it is. */
export const HISTORY_FIELDS = [
  'status',
  'expires_at',
  'auto_renew',
  'product_id',
  'price',
  'currency',
  'cancel_at_period_end',
  'cancelled_at',
  'cancellation_reason',
  'paused_at',
  'paused_until',
  'refunded_at',
  'billing_issue_at',
  'grace_period_expires_at',
] as const;
export type HistoryField = (typeof HISTORY_FIELDS)[number];

export type HistoryValue = string | number | boolean | null;

export interface HistoryEntry {
  at: string;
  version: number;
  /** `unknown`: a write that named no cause (bulk seeding, a version before history). */
  cause: ChangeCauseKind | 'unknown';
  action: string | null;
  /** The store notification that made the change, when one did. */
  notification_type: string | null;
  /** Each listed field that the write changed: its value before (null for a new subscription) and after. */
  changes: { field: HistoryField; from: HistoryValue; to: HistoryValue }[];
}

/** A subscription's state before or after a write, with its defaults restored. */
export type StateImage = { [field in HistoryField]?: HistoryValue } & { version: number; updated_at: string };

const fieldValue = (image: StateImage | undefined, field: HistoryField): HistoryValue => image?.[field] ?? null;

/**
 * The entry one write of a subscription's state adds to its history, or null for a write that is
 * not a change of it (a deletion, or a rewrite of the same version).
 */
export function historyEntryOf(
  before: StateImage | undefined,
  after: StateImage | undefined,
  cause: ChangeCause | undefined,
): HistoryEntry | null {
  if (!after || (before && before.version === after.version)) return null;
  // A cause of another version is an earlier write's, left on the item by a writer that named none.
  const own = cause && cause.version === after.version ? cause : undefined;
  return {
    at: after.updated_at,
    version: after.version,
    cause: own?.by ?? 'unknown',
    action: own?.action ?? null,
    notification_type: own?.notification ?? null,
    changes: HISTORY_FIELDS.flatMap((field) => {
      const from = before ? fieldValue(before, field) : null;
      const to = fieldValue(after, field);
      return from === to ? [] : [{ field, from, to }];
    }),
  };
}

/** Where a page of a subscription's history ended: the version of its last (oldest) entry. */
export interface HistoryCursor {
  subscriptionId: string;
  before: number;
}

export const encodeHistoryCursor = (cursor: HistoryCursor): string =>
  encodeCursorFields({ s: cursor.subscriptionId, v: cursor.before });

/** The version a cursor continues before; INVALID_PARAMETER for a malformed one or another subscription's. */
export function decodeHistoryCursor(cursor: string, subscriptionId: string): number {
  const decoded = decodeCursorFields<{ s: unknown; v: number }>(
    cursor,
    (c) => typeof c.v === 'number' && Number.isSafeInteger(c.v) && c.v >= 1,
  );
  if (decoded.s !== subscriptionId) {
    throw cursorOfAnotherQuery(
      'another subscription',
      'use the cursor with the subscription whose history it came from',
    );
  }
  return decoded.v;
}
