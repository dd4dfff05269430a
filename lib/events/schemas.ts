/**
 * THE event schemas: the notifications webhooks receive (the spec's status change, and ours: a
 * purchase transferred to another user), and the EventBridge detail that carries them on the
 * stack's bus (what operators' own rules match; its detail-type is the payload's `event`).
 */

import * as z from 'zod/mini';
import { define } from '../schemas/define.js';
import { subscriptionStatusSchema } from '../schemas/subscription.js';

export const STATUS_CHANGED = 'subscription.status_changed';
/** Ours, beyond the spec: a restore moved a purchase from one user to another (restore policy `transfer`). */
export const TRANSFERRED = 'subscription.transferred';
/** Every event kind (EventBridge detail-type) the service publishes. */
export const EVENT_KINDS = [STATUS_CHANGED, TRANSFERRED] as const;
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
 * so that the previous owner's side can see who took it, and undo it.
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

/** A webhook body: one of the event kinds, told apart by `event`. */
export const eventPayload = /* @__PURE__ */ define(() =>
  z.discriminatedUnion('event', [statusChangedPayload, transferredPayload]),
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
