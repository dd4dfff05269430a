/**
 * What receiving a store notification did, the one list of it: the notification's item records
 * it (lib/data/store-notifications.ts), the route answers it (lib/schemas/responses.ts). Free of
 * the table client, so the OpenAPI generator reads it without a table.
 */
export const NOTIFICATION_OUTCOMES = [
  /** It changed a subscription (or started one). */
  'applied',
  /** It was kept on a purchase nobody has verified yet. */
  'kept',
  /** The purchase already reflects a state the store stated later (it arrived out of order). */
  'stale',
  /** Nothing to change (a test, a consumption request, a type this version does not know, no news). */
  'recorded',
] as const;
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];

/** What the route answers: an outcome, or `duplicate` for a redelivery (it was received before). */
export const RECEIVED_OUTCOMES = [...NOTIFICATION_OUTCOMES, 'duplicate'] as const;
