import { type RevenueCatDeclaration, VERIFY_ERRORS } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatReceiptBody } from '../../lib/schemas/revenuecat.js';
import { postRevenueCatReceipt } from '../../lib/services/revenuecat.js';

/**
 * POST /v1/receipts: a purchase, restore or sync of RevenueCat's SDKs, verified with the store of
 * X-Platform, answered with the user's CustomerInfo. Only what can never verify is a 4xx (the SDK
 * then finishes the purchase); what may verify later is a 503, so the SDK keeps it and retries.
 */
export const endpoint = {
  body: revenuecatReceiptBody,
  user: 'body',
  platform: true,
  errors: VERIFY_ERRORS,
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async ({ caller, body }) => ({
  customerInfo: await postRevenueCatReceipt(caller.appId, caller.platform!, body),
}));
