/**
 * Two answers of a store that its callers act on beyond refusing the request
 * (lib/services/store-call-budget.ts): "I do not know this purchase" (remembered for a while, so
 * the same made-up token is not asked again) and "too many requests" (a back-off window for the
 * app). Each is the AppError the client sees, of a class that says which answer it was.
 */
import { AppError } from '../core/errors.js';
import { DEFAULT_BACK_OFF_SECONDS } from '../domain/store-call-budget.js';

/** The store does not know the purchase (Google 400/404/410, Apple 400 or a non-retryable 404). */
export class UnknownToStoreError extends AppError {
  constructor(message: string, cause?: unknown) {
    super('INVALID_RECEIPT', message, { cause });
  }
}

/** The store answered 429: retryable, after its Retry-After when it sent one. */
export class StoreThrottledError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    // Without the store's Retry-After, the back-off's default (lib/domain/store-call-budget.ts).
    super('VERIFICATION_FAILED', message, {
      retryable: true,
      headers: { 'Retry-After': String(retryAfterSeconds ?? DEFAULT_BACK_OFF_SECONDS) },
    });
  }
}
