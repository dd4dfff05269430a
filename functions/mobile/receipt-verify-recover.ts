import { subscribedObjectOf } from '../../lib/domain/subscribed-object.js';
import { type MobileDeclaration, VERIFY_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueRecoverBody, receiptOf } from '../../lib/schemas/dingyue.js';
import { recoverReceiptBody } from '../../lib/schemas/mobile.js';
import { verifyPurchase } from '../../lib/services/verification.js';

/** POST /receipt/verify/recover: restore purchases onto X-USER-ID (the app's restore policy decides about other users'). */
export const endpoint = {
  body: recoverReceiptBody,
  response: 'VerificationResult',
  errors: VERIFY_ERRORS,
  dingyue: { body: dingyueRecoverBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => ({
    message: 'Purchases restored',
    data: await verifyPurchase(
      caller.appId,
      { platform: caller.platform!, receipt_data: body.receipt, user_id: caller.userId },
      { restore: true },
    ),
  }),
  async ({ caller, body }) => ({
    // X-USER-ID is a device: an app that chose no restore policy lets a restore move its purchase here.
    receipts: [
      subscribedObjectOf(
        await verifyPurchase(
          caller.appId,
          { platform: caller.platform!, receipt_data: receiptOf(body), user_id: caller.userId },
          { restore: true, unsetRestorePolicy: 'transfer' },
        ),
      ),
    ],
  }),
);
