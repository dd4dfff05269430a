/**
 * Header rules of the mobile reporting API; each mobile endpoint's declaration names the one it
 * follows (lib/http/declaration.ts) and the mobile endpoint wrapper applies it, so handlers never
 * check headers themselves.
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
  /**
   * What the DingYue SDK sets on every call (its OpenAPIs/APIs/*.swift builders): no User-Agent
   * (it never sends the one it is given) and no Accept of its own.
   */
  dingyue: ['X-USER-ID', 'X-APP-ID', 'X-PLATFORM', 'X-VERSION'],
} as const;
export type MobileHeaderRule = keyof typeof MOBILE_HEADER_RULES;

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
