/** Whether a purchase on the device would be the user's, as purchases-ios asks: apart, so no other bundle carries it. */
import { invalidReceipt } from '../core/errors.js';
import type { Platform } from '../schemas/common.js';
import { jwsOf } from '../stores/signed-receipt.js';
import { isTestStoreReceipt } from '../stores/test-store.js';
import { restoreAllowed } from './verification.js';

/**
 * POST /v1/subscribers/{app_user_id}/restore/eligibility: whether restoring the transaction would
 * give this user its purchase (nobody's, theirs, or another user's under the `transfer` policy).
 * The SDK asks it under StoreKit 2 only, with a signed transaction: one checked here, never asking
 * a store, so the question costs no store call and no store credentials.
 */
export async function revenuecatRestoreEligibility(
  appId: string,
  userId: string,
  platform: Platform,
  transaction: string,
): Promise<{ is_purchase_allowed_by_restore_behavior: boolean }> {
  if (!jwsOf(transaction) && !isTestStoreReceipt(transaction))
    throw invalidReceipt('restore eligibility is asked with a signed StoreKit 2 transaction');
  const allowed = await restoreAllowed(appId, { platform, receipt_data: transaction, user_id: userId });
  return { is_purchase_allowed_by_restore_behavior: allowed };
}
