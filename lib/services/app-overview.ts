/** The app a secret key belongs to, as the console's header and webhooks page show it (GET /v1/app). */
import { getApp } from '../data/apps.js';
import { configuredStoresOf } from '../data/store-settings.js';
import { getWebhook, webhookEndpointView } from '../data/webhooks.js';
import type { AppOverview } from '../schemas/app.js';

export async function appOverview(appId: string, now = new Date()): Promise<AppOverview> {
  const [app, stores, webhook] = await Promise.all([getApp(appId), configuredStoresOf([appId]), getWebhook(appId)]);
  if (!app) throw new Error(`app ${appId} of an authenticated key does not exist`);
  const configured = stores.get(appId) ?? [];
  return {
    app_id: app.app_id,
    name: app.name,
    reporting_currency: app.reporting_currency,
    test_store: app.test_store,
    stores: { app_store: configured.includes('app_store'), google_play: configured.includes('google_play') },
    webhook: webhook ? webhookEndpointView(webhook, now) : null,
    created_at: app.created_at,
  };
}
