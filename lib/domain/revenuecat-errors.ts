/**
 * Refusals in RevenueCat's dialect: the integer `code` its SDKs map to their errors
 * (BackendErrorCode in purchases-ios and purchases-android) and the status that decides what
 * becomes of a purchase. Both SDKs finish (iOS) or acknowledge (Android) a purchase on any answer
 * below 500, so it is never sent again; a 5xx keeps it for a retry. So what may succeed later (a
 * store or the table unavailable, store credentials not set yet, a limit, a concurrent write) is
 * a 503, and only what can never succeed keeps its 4xx.
 */
import type { AppError, ErrorKind } from '../core/errors.js';

/** RevenueCat's backend error codes this service answers (BackendErrorCode.swift, errors.kt). */
export const REVENUECAT_CODES = {
  storeProblem: 7101,
  cannotTransferPurchase: 7102,
  invalidReceiptToken: 7103,
  internalServerError: 7110,
  invalidAuthToken: 7224,
  invalidAPIKey: 7225,
  badRequest: 7226,
  invalidSubscriberAttributes: 7263,
  requestAlreadyInProgress: 7638,
} as const;

/**
 * The codes of a promotional offer that could not be signed (`signature_error` in POST /v1/offers'
 * answer, not a refusal): apart from the table above, which every bundle of the dialect carries.
 */
export const REVENUECAT_OFFER_CODES = {
  invalidAppleSubscriptionKey: 7234,
} as const;

// Built in a call marked pure: to esbuild a top-level object reading another's properties may have
// side effects, and would be kept in every bundle that imports this module's neighbours.
const CODE_OF_KIND: Partial<Record<ErrorKind, number>> = /* @__PURE__ */ (() => ({
  INVALID_RECEIPT: REVENUECAT_CODES.invalidReceiptToken,
  RECEIPT_ALREADY_USED: REVENUECAT_CODES.cannotTransferPurchase,
  VERIFICATION_FAILED: REVENUECAT_CODES.storeProblem,
  INVALID_API_KEY: REVENUECAT_CODES.invalidAPIKey,
  API_KEY_MISSING: REVENUECAT_CODES.invalidAPIKey,
  USER_TOKEN_MISSING: REVENUECAT_CODES.invalidAuthToken,
  INVALID_USER_TOKEN: REVENUECAT_CODES.invalidAuthToken,
  CONCURRENT_MODIFICATION: REVENUECAT_CODES.requestAlreadyInProgress,
}))();

export interface RevenueCatRefusal {
  status: number;
  code: number;
}

/** The status and code of a refusal: a retry-later one is a 503, whatever its status elsewhere. */
export function revenuecatRefusalOf(error: Pick<AppError, 'kind' | 'status' | 'retryable'>): RevenueCatRefusal {
  const later = error.retryable || error.kind === 'VERIFICATION_FAILED' || error.kind === 'CONCURRENT_MODIFICATION';
  const status = error.status >= 500 ? error.status : later ? 503 : error.status;
  const code =
    CODE_OF_KIND[error.kind] ?? (status >= 500 ? REVENUECAT_CODES.internalServerError : REVENUECAT_CODES.badRequest);
  return { status, code };
}
