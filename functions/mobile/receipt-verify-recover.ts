import { type MobileDeclaration, VERIFY_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { recoverReceiptBody } from '../../lib/schemas/mobile.js';
import { verifyPurchase } from '../../lib/services/verification.js';

/** POST /receipt/verify/recover: restore purchases onto X-USER-ID (the app's restore policy decides about other users'). */
export const endpoint = {
  body: recoverReceiptBody,
  response: 'VerificationResult',
  errors: VERIFY_ERRORS,
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller, body }) => ({
  message: 'Purchases restored',
  data: await verifyPurchase(
    caller.appId,
    { platform: caller.platform!, receipt_data: body.receipt, user_id: caller.userId },
    { restore: true },
  ),
}));
