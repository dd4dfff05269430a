import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { verifyFirstReceiptBody } from '../../lib/schemas/mobile.js';
import { verifyPurchase } from '../../lib/services/verification.js';

/** POST /receipt/verify/first: the first purchase of X-USER-ID, in the store X-PLATFORM names. */
export const handler = mobileEndpoint({ body: verifyFirstReceiptBody }, async ({ caller, body }) => ({
  message: 'Receipt verified',
  data: await verifyPurchase(
    caller.appId,
    { platform: caller.platform!, receipt_data: body.receipt, user_id: caller.userId },
    { expectedProductId: body.productId },
  ),
}));
