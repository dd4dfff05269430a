/**
 * CORS of the subscription API, for the operator console only: a browser page may call it when
 * its origin is one of CONSOLE_ORIGINS (the console's CloudFront URL in AWS). Any other origin
 * gets no CORS header, so a browser keeps that page from reading an answer; the secret-key API
 * never answers `*`. The preflight (OPTIONS) is API Gateway's in AWS (cdk/constructs/api.ts) and
 * the local gateway's in `npm start`, both from the lists below.
 */
import { config } from '../core/config.js';

export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-None-Match'] as const;
/** What the console reads from answers: when to retry, the rate limit, the request id to quote. */
export const CORS_EXPOSED_HEADERS = ['Retry-After', 'RateLimit', 'RateLimit-Policy', 'ETag', 'X-Request-Id'] as const;
/** Seconds a browser may reuse a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

export const isAllowedOrigin = (origin: string | undefined, allowed: readonly string[] = config.consoleOrigins) =>
  origin !== undefined && allowed.includes(origin);

/** Headers of an actual answer to a request from `origin`. */
export function corsHeaders(
  origin: string | undefined,
  allowed: readonly string[] = config.consoleOrigins,
): Record<string, string> {
  if (allowed.length === 0) return {};
  // Caches must not hand one origin's answer to another.
  if (!isAllowedOrigin(origin, allowed)) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin!,
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
    Vary: 'Origin',
  };
}

/** Headers of the answer to a preflight from `origin` (none when the origin is not allowed). */
export function preflightHeaders(
  origin: string | undefined,
  allowed: readonly string[] = config.consoleOrigins,
): Record<string, string> {
  if (!isAllowedOrigin(origin, allowed)) return allowed.length === 0 ? {} : { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin!,
    'Access-Control-Allow-Methods': CORS_ALLOWED_METHODS.join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
    Vary: 'Origin',
  };
}
