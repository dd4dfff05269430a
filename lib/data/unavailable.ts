/**
 * Errors that mean "DynamoDB cannot serve this right now, the same request may succeed later"
 * (throttled, unreachable, restarting), as opposed to errors in the request itself. The HTTP
 * layer answers them with a retryable 503; background work retries them.
 */

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
  if (
    [
      'ProvisionedThroughputExceededException',
      'ThrottlingException',
      'RequestLimitExceeded',
      'InternalServerError',
      'ServiceUnavailable',
      'TransactionConflictException',
      'TimeoutError',
    ].includes(name) ||
    // Socket errors of an endpoint that is down or went away mid-request.
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)
  )
    return true;
  // A transaction cancelled for one of these reasons may commit when tried again.
  const retryable = ['ThrottlingError', 'ProvisionedThroughputExceeded', 'TransactionConflict'];
  // Stryker disable next-line StringLiteral: an absent reason and any text outside the set are not retryable alike
  return cancellationReasonsOf(error).some((reason) => retryable.includes(reason ?? ''));
}
