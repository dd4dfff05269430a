import { subscribedObjectOf } from '../../lib/domain/subscribed-object.js';
import { type MobileDeclaration, VERIFY_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueFirstReceiptBody, receiptOf } from '../../lib/schemas/dingyue.js';
import { verifyFirstReceiptBody } from '../../lib/schemas/mobile.js';
import { verifyPurchase } from '../../lib/services/verification.js';

/** POST /receipt/verify/first: the first purchase of X-USER-ID, in the store X-PLATFORM names. */
export const endpoint = {
  body: verifyFirstReceiptBody,
  response: 'VerificationResult',
  errors: VERIFY_ERRORS,
  dingyue: { body: dingyueFirstReceiptBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => ({
    message: 'Receipt verified',
    data: await verifyPurchase(
      caller.appId,
      { platform: caller.platform!, receipt_data: body.receipt, user_id: caller.userId },
      { expectedProductId: body.productId },
    ),
  }),
  async ({ caller, body }) => ({
    receipt: subscribedObjectOf(
      await verifyPurchase(
        caller.appId,
        { platform: caller.platform!, receipt_data: receiptOf(body), user_id: caller.userId },
        { expectedProductId: body.platformProductId },
      ),
    ),
  }),
);
