/**
 * THE event schemas: the status-change notification of the spec (what webhooks receive), and
 * the EventBridge detail that carries it on the stack's bus (what operators' own rules match).
 */
import { subscriptionStatusSchema } from '../schemas/subscription.js';
import * as z from 'zod/mini';
import { define } from '../schemas/define.js';

export const STATUS_CHANGED = 'subscription.status_changed';
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

/** EventBridge detail (detail-type `subscription.status_changed`): which app, which event, the payload. */
export const busEventDetail = /* @__PURE__ */ define(() =>
  z.strictObject({
    app_id: z.string(),
    /** Stable per event: the `webhook-id` of every delivery attempt. */
    event_id: z.string().check(z.regex(/^evt_[0-9a-f]{24}$/)),
    payload: statusChangedPayload,
  }),
);
export type BusEventDetail = z.infer<typeof busEventDetail>;
