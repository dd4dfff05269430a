/**
 * THE event schemas: the notifications webhooks receive (the spec's status change, and ours: a
 * purchase transferred to another user), and the EventBridge detail that carries them on the
 * stack's bus (what operators' own rules match; its detail-type is the payload's `event`).
 */

import * as z from 'zod/mini';
import { STORE_NAMES } from '../domain/store-purchase.js';
import { type StoreEventKind, SUBSCRIPTION_ENVIRONMENTS } from '../domain/store-sync.js';
import { define } from '../schemas/define.js';
import { subscriptionStatusSchema } from '../schemas/subscription.js';

export const STATUS_CHANGED = 'subscription.status_changed';
/** Ours, beyond the spec: a restore moved a purchase from one user to another (restore policy `transfer`). */
export const TRANSFERRED = 'subscription.transferred';
/** Ours, beyond the spec: what the stores report (docs/notifications.md, "Event kinds"). */
export const RENEWED = 'subscription.renewed';
export const AUTO_RENEW_CHANGED = 'subscription.auto_renew_changed';
export const BILLING_ISSUE = 'subscription.billing_issue';
export const REFUNDED = 'subscription.refunded';
export const REFUND_REVERSED = 'subscription.refund_reversed';
export const PRODUCT_CHANGED = 'subscription.product_changed';
/** The event of each store-driven change (lib/domain/store-sync.ts). */
export const STORE_EVENTS = {
  renewed: RENEWED,
  auto_renew_changed: AUTO_RENEW_CHANGED,
  billing_issue: BILLING_ISSUE,
  refunded: REFUNDED,
  refund_reversed: REFUND_REVERSED,
  product_changed: PRODUCT_CHANGED,
} as const satisfies Record<StoreEventKind, string>;
/** Ours: a grant of an entitlement started or was extended, was revoked, or ran out (POST .../grant, .../revoke, the sweeper). */
export const ENTITLEMENT_GRANTED = 'entitlement.granted';
export const ENTITLEMENT_REVOKED = 'entitlement.revoked';
export const ENTITLEMENT_EXPIRED = 'entitlement.expired';
/** Every event kind (EventBridge detail-type) the service publishes. */
export const EVENT_KINDS = [
  STATUS_CHANGED,
  TRANSFERRED,
  RENEWED,
  AUTO_RENEW_CHANGED,
  BILLING_ISSUE,
  REFUNDED,
  REFUND_REVERSED,
  PRODUCT_CHANGED,
  ENTITLEMENT_GRANTED,
  ENTITLEMENT_REVOKED,
  ENTITLEMENT_EXPIRED,
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
/** EventBridge `source` of every event this service puts on its bus. */
export const EVENT_SOURCE = 'subscription-backend';

/** Spec: Events. Exactly these fields. */
export const statusChangedPayload = /* @__PURE__ */ define(() =>
  z.strictObject({
    event: z.literal(STATUS_CHANGED),
    timestamp: z.iso.datetime(),
    data: z.strictObject({
      subscription_id: z.string(),
      user_id: z.string(),
      old_status: subscriptionStatusSchema,
      new_status: subscriptionStatusSchema,
      expires_at: z.iso.datetime(),
      auto_renew: z.boolean(),
    }),
  }),
);
export type StatusChangedPayload = z.infer<typeof statusChangedPayload>;

/**
 * A purchase (its store's original transaction id) moved from one user's subscription, now
 * cancelled, to a new subscription of another user. Besides the two status changes it comes with,
 * so that the previous owner's side can see who took it, and undo it. At a RevenueCat logIn the
 * subscription itself moves from the anonymous id to the identified user: both ids are its own,
 * and no status changes.
 */
export const transferredPayload = /* @__PURE__ */ define(() =>
  z.strictObject({
    event: z.literal(TRANSFERRED),
    timestamp: z.iso.datetime(),
    data: z.strictObject({
      original_transaction_id: z.string(),
      product_id: z.string(),
      from_user_id: z.string(),
      to_user_id: z.string(),
      from_subscription_id: z.string(),
      to_subscription_id: z.string(),
    }),
  }),
);
export type TransferredPayload = z.infer<typeof transferredPayload>;

/** What every store-driven event says about the subscription, as the change left it. */
const storeEventData = /* @__PURE__ */ define(() => ({
  subscription_id: z.string(),
  user_id: z.string(),
  product_id: z.string(),
  /** The price of the subscription's latest period, as the store reported it. */
  price: z.number(),
  currency: z.string(),
  store: z.nullable(z.enum(STORE_NAMES)),
  environment: z.enum(SUBSCRIPTION_ENVIRONMENTS),
  status: subscriptionStatusSchema,
  expires_at: z.iso.datetime(),
  auto_renew: z.boolean(),
}));
const storeEvent = <K extends string, E extends z.core.$ZodLooseShape>(event: K, extra: E) =>
  z.strictObject({
    event: z.literal(event),
    timestamp: z.iso.datetime(),
    data: z.strictObject({ ...storeEventData, ...extra }),
  });

/** The store charged the next period (a renewal, or a recovery from a billing issue). */
export const renewedPayload = /* @__PURE__ */ define(() =>
  storeEvent(RENEWED, { transaction_id: z.nullable(z.string()) }),
);
/** The subscriber turned renewal off (cancelled in the store's settings) or back on. */
export const autoRenewChangedPayload = /* @__PURE__ */ define(() => storeEvent(AUTO_RENEW_CHANGED, {}));
/** The store could not charge the renewal; with a grace period, access lasts until it ends. */
export const billingIssuePayload = /* @__PURE__ */ define(() =>
  storeEvent(BILLING_ISSUE, {
    billing_issue_at: z.iso.datetime(),
    grace_period_expires_at: z.nullable(z.iso.datetime()),
  }),
);
/** The store refunded (revoked) the purchase; the amount is `price` in `currency`. */
export const refundedPayload = /* @__PURE__ */ define(() => storeEvent(REFUNDED, { refunded_at: z.iso.datetime() }));
/** The store reversed the refund it granted: the money is back, and so is access if the period runs. */
export const refundReversedPayload = /* @__PURE__ */ define(() => storeEvent(REFUND_REVERSED, {}));
/** The subscriber moved to another product (an upgrade, a downgrade taking effect). */
export const productChangedPayload = /* @__PURE__ */ define(() =>
  storeEvent(PRODUCT_CHANGED, { previous_product_id: z.string() }),
);
export type StoreEventPayload =
  | z.infer<typeof renewedPayload>
  | z.infer<typeof autoRenewChangedPayload>
  | z.infer<typeof billingIssuePayload>
  | z.infer<typeof refundedPayload>
  | z.infer<typeof refundReversedPayload>
  | z.infer<typeof productChangedPayload>;

/** What every grant event says: whose grant of which entitlement, and when it ends (or ended). */
const grantEvent = <K extends string, E extends z.core.$ZodLooseShape>(event: K, extra: E) =>
  z.strictObject({
    event: z.literal(event),
    timestamp: z.iso.datetime(),
    data: z.strictObject({
      user_id: z.string(),
      entitlement_id: z.string(),
      granted_at: z.iso.datetime(),
      expires_at: z.iso.datetime(),
      ...extra,
    }),
  });
/** A grant started, or one running was extended or changed (previous_expires_at: its end before; null for a new grant). */
export const entitlementGrantedPayload = /* @__PURE__ */ define(() =>
  grantEvent(ENTITLEMENT_GRANTED, { previous_expires_at: z.nullable(z.iso.datetime()) }),
);
/** A running grant was revoked: it ended at `expires_at`, the time of the revoke. */
export const entitlementRevokedPayload = /* @__PURE__ */ define(() => grantEvent(ENTITLEMENT_REVOKED, {}));
/** A grant ran out at `expires_at` (sent by the sweeper, once). */
export const entitlementExpiredPayload = /* @__PURE__ */ define(() => grantEvent(ENTITLEMENT_EXPIRED, {}));
export type GrantEventPayload =
  | z.infer<typeof entitlementGrantedPayload>
  | z.infer<typeof entitlementRevokedPayload>
  | z.infer<typeof entitlementExpiredPayload>;

/** A webhook body: one of the event kinds, told apart by `event`. */
export const eventPayload = /* @__PURE__ */ define(() =>
  z.discriminatedUnion('event', [
    statusChangedPayload,
    transferredPayload,
    renewedPayload,
    autoRenewChangedPayload,
    billingIssuePayload,
    refundedPayload,
    refundReversedPayload,
    productChangedPayload,
    entitlementGrantedPayload,
    entitlementRevokedPayload,
    entitlementExpiredPayload,
  ]),
);
export type EventPayload = z.infer<typeof eventPayload>;

/** EventBridge detail (detail-type: the payload's `event`): which app, which event, the payload. */
export const busEventDetail = /* @__PURE__ */ define(() =>
  z.strictObject({
    app_id: z.string(),
    /** Stable per event: the `webhook-id` of every delivery attempt. */
    event_id: z.string().check(z.regex(/^evt_[0-9a-f]{24}$/)),
    payload: eventPayload,
  }),
);
export type BusEventDetail = z.infer<typeof busEventDetail>;
