/**
 * The one error table of the service. Every failure a client can see is an AppError whose
 * kind is a key of ERRORS; lib/http/envelopes.ts turns it into the right HTTP status and
 * body for the API that was called. A kind's public `code` is what clients match on; it
 * equals the kind except where one code needs two HTTP statuses (a missing API key or user
 * token is a 401 but a missing X-VERSION is a 400, all MISSING_REQUIRED_HEADER).
 */
export const ERRORS = {
  // Spec: subscription management API
  SUBSCRIPTION_NOT_FOUND: { status: 404, message: 'Subscription not found' },
  INVALID_RECEIPT: { status: 400, message: 'Purchase receipt is invalid' },
  RECEIPT_ALREADY_USED: { status: 400, message: 'Receipt was already used by another user' },
  PRODUCT_NOT_FOUND: { status: 404, message: 'Product not found' },
  SUBSCRIPTION_EXPIRED: { status: 400, message: 'Subscription has expired' },
  VERIFICATION_FAILED: { status: 400, message: 'Purchase verification failed' },
  // Spec: mobile reporting API
  INVALID_API_KEY: { status: 401, message: 'API key is invalid' },
  MISSING_REQUIRED_HEADER: { status: 400, message: 'A required header is missing' },
  INVALID_PARAMETER: { status: 400, message: 'Request parameter is not valid' },
  USER_NOT_FOUND: { status: 404, message: 'User not found' },
  EVENT_NAME_REQUIRED: { status: 400, message: 'Event name is required' },
  USER_REQUIRED: { status: 400, message: 'Event user is required' },
  SESSION_ID_REQUIRED: { status: 400, message: 'Event sessionId is required' },
  // Ours (spec: "not shown")
  /** GET /v1/customers/{user_id}: the app has never seen the user (no profile, no subscription). */
  CUSTOMER_NOT_FOUND: { status: 404, message: 'Customer not found' },
  /** POST /v1/webhooks/deliveries/{event_id}/redeliver: no delivery of that event in this app. */
  DELIVERY_NOT_FOUND: { status: 404, message: 'Webhook delivery not found' },
  /** Redeliver: the event names a user who has been erased since (DELETE /v1/customers/{user_id}); it is not sent again. */
  EVENT_OF_ERASED_USER: { status: 409, message: 'The event names a user who has been erased' },
  /** Grant and revoke: the app defines no entitlement of this id (`admin entitlements put`). */
  ENTITLEMENT_NOT_FOUND: { status: 404, message: 'Entitlement not found' },
  API_KEY_MISSING: { status: 401, code: 'MISSING_REQUIRED_HEADER', message: 'API key is missing' },
  /** Only for apps that require signed user tokens (docs/security.md: Mobile trust model). */
  USER_TOKEN_MISSING: {
    status: 401,
    code: 'MISSING_REQUIRED_HEADER',
    message: 'Missing required header X-USER-TOKEN (this app requires signed user tokens)',
  },
  INVALID_USER_TOKEN: { status: 401, message: 'X-USER-TOKEN is not a valid token for this user' },
  FORBIDDEN: { status: 403, message: 'Insufficient permission' },
  INVALID_STATUS_TRANSITION: { status: 409, message: 'Status transition is not allowed' },
  CONCURRENT_MODIFICATION: { status: 409, message: 'Subscription was modified concurrently; retry' },
  /** A store notification that is not genuine, not for this app, or malformed: nothing changes (docs/notifications.md). */
  INVALID_NOTIFICATION: { status: 400, message: 'Store notification is not valid' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No such endpoint' },
  /** The path is an endpoint's, the method is not one it serves: the Allow header lists those. */
  METHOD_NOT_ALLOWED: {
    status: 405,
    message: 'Method not allowed on this path; the Allow header lists the allowed ones',
  },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded; retry after Retry-After seconds' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service temporarily unavailable; retry' },
  INTERNAL_ERROR: { status: 500, message: 'Internal error' },
  /** What API Gateway answers for a function that timed out (a failed Lambda invocation). */
  FUNCTION_TIMED_OUT: { status: 502, code: 'INTERNAL_ERROR', message: 'Internal server error' },
} as const satisfies Record<string, { status: number; message: string; code?: string }>;

export type ErrorKind = keyof typeof ERRORS;

/** Field-level validation detail: `path` is a dotted field path, e.g. `body.price`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  /** True when the same request may succeed later (clients should retry with backoff). */
  retryable?: boolean;
  cause?: unknown;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly retryable: boolean;

  constructor(kind: ErrorKind, message?: string, options: AppErrorOptions = {}) {
    super(message ?? ERRORS[kind].message, { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.details = options.details;
    this.headers = options.headers;
    this.retryable = options.retryable ?? false;
  }

  /** The same error with more response headers (e.g. the RateLimit fields of the request). */
  withHeaders(headers: Record<string, string>): AppError {
    return new AppError(this.kind, this.message, {
      details: this.details,
      headers: { ...headers, ...this.headers },
      retryable: this.retryable,
      cause: this.cause,
    });
  }

  get status(): number {
    return ERRORS[this.kind].status;
  }

  /** The code clients see. */
  get code(): string {
    const entry = ERRORS[this.kind];
    return 'code' in entry ? entry.code : this.kind;
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/** A purchase that can never verify (malformed, another app's, refused by its store): the most common refusal. */
export const invalidReceipt = (message: string, options?: AppErrorOptions): AppError =>
  new AppError('INVALID_RECEIPT', message, options);
