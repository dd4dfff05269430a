/**
 * Errors that mean "DynamoDB cannot serve this right now, the same request may succeed later"
 * (throttled, unreachable, restarting), as opposed to errors in the request itself. The HTTP
 * layer answers them with a retryable 503; background work retries them.
 */
const UNAVAILABLE_ERROR_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TimeoutError',
]);
/** Socket errors of an endpoint that is down or went away mid-request. */
const UNAVAILABLE_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
/** A transaction cancelled for one of these reasons may commit when tried again. */
const RETRYABLE_CANCELLATION_REASONS = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'TransactionConflict',
]);

/** Why each item of a cancelled TransactWriteItems failed, in the transaction's order (empty for any other error). */
export const cancellationReasonsOf = (error: unknown): (string | undefined)[] =>
  (error as Error | undefined)?.name === 'TransactionCanceledException'
    ? ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((reason) => reason.Code)
    : [];

export function isDataStoreUnavailable(error: unknown): boolean {
  // Stryker disable next-line StringLiteral: any name or code outside the sets is not unavailable alike
  const name = (error as { name?: string } | undefined)?.name ?? '';
  // Stryker disable next-line StringLiteral: any name or code outside the sets is not unavailable alike
  const code = (error as { code?: string } | undefined)?.code ?? '';
  if (UNAVAILABLE_ERROR_NAMES.has(name) || UNAVAILABLE_ERROR_CODES.has(code)) return true;
  // Stryker disable next-line StringLiteral: an absent reason and any text outside the set are not retryable alike
  return cancellationReasonsOf(error).some((reason) => RETRYABLE_CANCELLATION_REASONS.has(reason ?? ''));
}
