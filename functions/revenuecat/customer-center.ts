import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';
import { revenuecatCustomerCenter } from '../../lib/services/revenuecat-customer-center.js';

/**
 * GET /v1/customercenter/{app_user_id}: what RevenueCatUI's Customer Center screen shows
 * (purchases-ios CustomerCenterConfigResponse.swift, purchases-android CustomerCenterConfigData.kt):
 * RevenueCat's template of help paths (restore, refund, change plans, cancel) and the app's
 * support email (`admin apps update --support-email`), lib/domain/revenuecat-customer-center.ts.
 */
export const endpoint = {
  params: revenuecatSubscriberParams,
  user: 'path',
  // The support email's absence is said differently to each SDK (lib/domain/revenuecat-customer-center.ts).
  platform: true,
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller }) => ({
  body: { ...(await revenuecatCustomerCenter(caller.appId, caller.platform)) },
}));
