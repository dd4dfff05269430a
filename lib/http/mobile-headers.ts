/**
 * Header rules of the mobile reporting API and which rule each mobile route follows
 * (mobileRoutePolicy); the mobile endpoint middleware applies it, so handlers never check headers
 * themselves.
 */
import { AppError } from '../core/errors.js';
import type { MobileIdentity } from '../domain/callers.js';
import type { Platform } from '../schemas/common.js';

/**
 * Names as the spec spells them, which a refusal names; requests are read by their lower-case
 * names (headers are normalised). Content-Type is required only with a body.
 */
export const MOBILE_HEADER_RULES = {
  /** The common headers of the spec. */
  common: ['X-USER-ID', 'User-Agent', 'X-APP-ID', 'X-PLATFORM', 'X-VERSION', 'Accept'],
  /** The spec's segment-info example sends only these (besides X-API-KEY). */
  identity: ['X-USER-ID', 'X-APP-ID'],
} as const;
export type MobileHeaderRule = keyof typeof MOBILE_HEADER_RULES;

/** What a mobile route requires besides X-API-KEY. */
export interface MobileRoutePolicy {
  headers: MobileHeaderRule;
  /**
   * The route reads or changes data of the X-USER-ID user, so an app that requires signed user
   * tokens refuses it without a valid X-USER-TOKEN (lib/http/auth.ts requireUserToken).
   */
  actsOnUser: boolean;
}

/**
 * The mobile routes (lib/routes.ts paths) whose policy is not the default one: every common
 * header, and acting on the user. A route not listed here is refused without a user token when
 * the app requires them (fail closed). Kept out of the route table so that a function's bundle
 * does not carry every route.
 */
export const MOBILE_POLICY_EXCEPTIONS: Readonly<Record<string, Partial<MobileRoutePolicy>>> = {
  '/segment/info': { headers: 'identity' },
};

export const mobileRoutePolicy = (path: string): MobileRoutePolicy => ({
  headers: 'common',
  actsOnUser: true,
  ...(Object.hasOwn(MOBILE_POLICY_EXCEPTIONS, path) ? MOBILE_POLICY_EXCEPTIONS[path] : {}),
});

/** Checks the rule's headers (names the first one missing) and reads the caller's identity from them. */
export function readMobileHeaders(
  headers: Record<string, string | undefined>,
  rule: MobileHeaderRule,
  hasBody: boolean,
): MobileIdentity {
  const required: string[] = [...MOBILE_HEADER_RULES[rule], ...(hasBody ? ['Content-Type'] : [])];
  for (const name of required) {
    if (!headers[name.toLowerCase()]?.trim())
      throw new AppError('MISSING_REQUIRED_HEADER', `Missing required header ${name}`);
  }
  const rawPlatform = headers['x-platform']?.trim().toLowerCase();
  let platform: Platform | undefined;
  if (rawPlatform !== undefined) {
    if (rawPlatform !== 'ios' && rawPlatform !== 'android')
      throw new AppError('INVALID_PARAMETER', 'X-PLATFORM must be iOS or Android');
    platform = rawPlatform;
  }
  const userId = headers['x-user-id']!.trim();
  if (userId.length > 256) throw new AppError('INVALID_PARAMETER', 'X-USER-ID must be at most 256 characters');
  return {
    userId,
    appIdHeader: headers['x-app-id']!.trim(),
    platform,
    sdkVersion: headers['x-version']?.trim().slice(0, 64),
  };
}
