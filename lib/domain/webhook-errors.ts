/**
 * What went wrong with a webhook attempt that got no answer, as a category (pure). A delivery
 * records the category, never the error's text: an operator needs to know "timeout" or "dns", and
 * the exact connect error of an address would make the deliveries listing a port scanner.
 */

export const DELIVERY_ERRORS = [
  /** No answer within the attempt's timeout. */
  'timeout',
  'connection_refused',
  /** The connection was closed or reset before an answer. */
  'connection_reset',
  /** No route to the address (host or network unreachable, connect timeout of the system). */
  'unreachable',
  /** The name does not resolve. */
  'dns',
  /** The TLS handshake failed (certificate, protocol). */
  'tls',
  /** The URL leads to a loopback, private, link-local or reserved address (docs/security.md). */
  'refused_target',
  /** The endpoint is not an http(s) URL. */
  'invalid_url',
  /** Any other network failure. */
  'network',
] as const;
export type DeliveryError = (typeof DELIVERY_ERRORS)[number];

interface ErrorFacts {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
}

/** The category of an error thrown by an attempt (node:http, its lookup, the abort signal). */
export function deliveryErrorOf(error: unknown): DeliveryError {
  const facts = (typeof error === 'object' && error !== null ? error : {}) as ErrorFacts;
  const cause = (typeof facts.cause === 'object' && facts.cause !== null ? facts.cause : {}) as ErrorFacts;
  if (facts.name === 'TimeoutError' || cause.name === 'TimeoutError') return 'timeout';
  const stated = typeof facts.code === 'string' ? facts.code : typeof cause.code === 'string' ? cause.code : undefined;
  // Stryker disable next-line StringLiteral: any code no rule below names is the same 'network'
  const code = stated ?? '';
  if (code === 'ERR_REFUSED_TARGET') return 'refused_target';
  if (code === 'ERR_INVALID_URL' || code === 'ERR_UNSUPPORTED_PROTOCOL') return 'invalid_url';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (['ECONNRESET', 'EPIPE', 'ECONNABORTED'].includes(code)) return 'connection_reset';
  if (['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA'].includes(code)) return 'dns';
  if (['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ETIMEDOUT'].includes(code)) return 'unreachable';
  if (/^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/.test(code))
    return 'tls';
  return 'network';
}

/** What a listing shows of a recorded error: records written before categories held the raw text. */
export const shownDeliveryError = (recorded: string | null): DeliveryError | null =>
  recorded === null
    ? null
    : (DELIVERY_ERRORS as readonly string[]).includes(recorded)
      ? (recorded as DeliveryError)
      : 'network';
