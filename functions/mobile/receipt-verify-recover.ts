import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { recoverReceiptBody } from '../../lib/schemas/mobile.js';
import { verifyPurchase } from '../../lib/services/verification.js';

/** POST /receipt/verify/recover: restore purchases onto X-USER-ID (the app's restore policy decides about other users'). */
export const handler = mobileEndpoint({ body: recoverReceiptBody }, async ({ caller, body }) => ({
  message: 'Purchases restored',
  data: await verifyPurchase(
    caller.appId,
    { platform: caller.platform!, receipt_data: body.receipt, user_id: caller.userId },
    { restore: true },
  ),
}));
