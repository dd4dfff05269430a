/**
 * CORS of the subscription API, for the operator console only: a browser page may call it when
 * its origin is one of CONSOLE_ORIGINS (the console's CloudFront URL in AWS). Any other origin
 * gets no CORS header, so a browser keeps that page from reading an answer; the secret-key API
 * never answers `*`. The preflight (OPTIONS) is API Gateway's in AWS (cdk/constructs/api.ts) and
 * the local gateway's in `npm start`, both from the lists below.
 */

export function readConsoleOrigins(raw: string | undefined): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    // `https://host[:port]` or `http://host[:port]`: an origin as browsers send it, nothing more.
    if (!/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/.test(origin)) {
      throw new Error(
        `CONSOLE_ORIGINS must list origins such as https://console.example.com (no path, no "*"), got "${origin}"`,
      );
    }
  }
  return origins;
}

let origins: readonly string[] | undefined;
/**
 * CONSOLE_ORIGINS, read at the first answer (here, not in lib/core/config.ts: the functions that
 * never answer a browser need not carry it). The stack checks the value at synth.
 */
export const consoleOrigins = (): readonly string[] => (origins ??= readConsoleOrigins(process.env.CONSOLE_ORIGINS));

export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-None-Match'] as const;
/** What the console reads from answers: when to retry, the rate limit, the request id to quote. */
export const CORS_EXPOSED_HEADERS = ['Retry-After', 'RateLimit', 'RateLimit-Policy', 'ETag', 'X-Request-Id'] as const;
/** Seconds a browser may reuse a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

export const isAllowedOrigin = (origin: string | undefined, allowed: readonly string[] = consoleOrigins()) =>
  origin !== undefined && allowed.includes(origin);

/** Headers of an actual answer to a request from `origin`. */
export function corsHeaders(
  origin: string | undefined,
  allowed: readonly string[] = consoleOrigins(),
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
  allowed: readonly string[] = consoleOrigins(),
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
