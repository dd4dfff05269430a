/** What `GET /v1/app` answers: the app the secret key belongs to, never one of its secrets. */
import * as z from 'zod/mini';
import { EVENT_KINDS } from '../events/schemas.js';
import { define } from './define.js';

const timestamp = /* @__PURE__ */ define(() => z.iso.datetime());

/** The app's webhook endpoint as `admin webhooks show` prints it: never its signing secret. */
export const webhookEndpointViewSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    url: z.string(),
    /** False once the receiver answered 410, or the operator's `webhooks set` has not enabled it since. */
    enabled: z.boolean(),
    disabled_reason: z.nullable(z.string()),
    /** The event kinds it receives; null for every kind, later ones included. */
    events: z.nullable(z.array(z.enum(EVENT_KINDS))),
    /** Its attempts kept timing out: deliveries wait until then (docs/notifications.md). */
    paused_until: z.nullable(timestamp),
    updated_at: timestamp,
  }),
);
export type WebhookEndpointView = z.infer<typeof webhookEndpointViewSchema>;

export const appOverviewSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    app_id: z.string(),
    name: z.string(),
    /** Currency revenue is reported in. */
    reporting_currency: z.string(),
    /** Accepts receipts minted by `admin receipts mint`. */
    test_store: z.boolean(),
    /** Whether App Store and Google Play settings are stored (`admin stores show` says what they are). */
    stores: z.strictObject({ app_store: z.boolean(), google_play: z.boolean() }),
    /** Null while no endpoint is set (`admin webhooks set`). */
    webhook: z.nullable(webhookEndpointViewSchema),
    created_at: timestamp,
  }),
);
export type AppOverview = z.infer<typeof appOverviewSchema>;
