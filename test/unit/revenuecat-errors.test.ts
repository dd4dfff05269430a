import { describe, expect, it } from 'vitest';
import { AppError, type ErrorKind } from '../../lib/core/errors.js';
import { REVENUECAT_CODES, revenuecatRefusalOf } from '../../lib/domain/revenuecat-errors.js';

describe('revenuecatRefusalOf', () => {
  // What can never succeed keeps its 4xx (the SDK finishes the purchase); what may succeed later is a 503 (kept).
  const cases: { kind: ErrorKind; retryable?: boolean; status: number; code: number }[] = [
    { kind: 'INVALID_RECEIPT', status: 400, code: REVENUECAT_CODES.invalidReceiptToken },
    { kind: 'RECEIPT_ALREADY_USED', status: 400, code: REVENUECAT_CODES.cannotTransferPurchase },
    { kind: 'INVALID_PARAMETER', status: 400, code: REVENUECAT_CODES.badRequest },
    { kind: 'PAYLOAD_TOO_LARGE', status: 413, code: REVENUECAT_CODES.badRequest },
    { kind: 'INVALID_API_KEY', status: 401, code: REVENUECAT_CODES.invalidAPIKey },
    { kind: 'API_KEY_MISSING', status: 401, code: REVENUECAT_CODES.invalidAPIKey },
    { kind: 'USER_TOKEN_MISSING', status: 401, code: REVENUECAT_CODES.invalidAuthToken },
    { kind: 'INVALID_USER_TOKEN', status: 401, code: REVENUECAT_CODES.invalidAuthToken },
    { kind: 'ROUTE_NOT_FOUND', status: 404, code: REVENUECAT_CODES.badRequest },
    // Store credentials not set yet, or a store error that is not retryable in our table: kept all the same.
    { kind: 'VERIFICATION_FAILED', status: 503, code: REVENUECAT_CODES.storeProblem },
    { kind: 'VERIFICATION_FAILED', retryable: true, status: 503, code: REVENUECAT_CODES.storeProblem },
    { kind: 'CONCURRENT_MODIFICATION', status: 503, code: REVENUECAT_CODES.requestAlreadyInProgress },
    // A 429 is a 4xx to Android, which would acknowledge the purchase and drop it.
    { kind: 'RATE_LIMITED', retryable: true, status: 503, code: REVENUECAT_CODES.internalServerError },
    { kind: 'SERVICE_UNAVAILABLE', retryable: true, status: 503, code: REVENUECAT_CODES.internalServerError },
    { kind: 'INTERNAL_ERROR', status: 500, code: REVENUECAT_CODES.internalServerError },
    // A 5xx keeps its own status, retryable or not.
    { kind: 'INTERNAL_ERROR', retryable: true, status: 500, code: REVENUECAT_CODES.internalServerError },
    { kind: 'FUNCTION_TIMED_OUT', status: 502, code: REVENUECAT_CODES.internalServerError },
  ];

  it.each(cases)('$kind (retryable: $retryable): $status, code $code', ({ kind, retryable, status, code }) => {
    expect(revenuecatRefusalOf(new AppError(kind, undefined, { retryable }))).toEqual({ status, code });
  });
});
