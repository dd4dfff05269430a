/**
 * Header rules of the mobile reporting API. Each mobile route names its rule in lib/routes.ts;
 * the mobile endpoint middleware applies it, so handlers never check headers themselves.
 */
import { AppError } from '../core/errors.js';
import type { Platform } from '../schemas/common.js';

/** Lower-case names (headers are normalised). Content-Type is required only with a body. */
export const MOBILE_HEADER_RULES = {
  /** The common headers of the spec. */
  common: ['x-user-id', 'user-agent', 'x-app-id', 'x-platform', 'x-version', 'accept'],
  /** The spec's segment-info example sends only these (besides X-API-KEY). */
  identity: ['x-user-id', 'x-app-id'],
} as const;
export type MobileHeaderRule = keyof typeof MOBILE_HEADER_RULES;

const DISPLAY: Record<string, string> = {
  'x-user-id': 'X-USER-ID',
  'user-agent': 'User-Agent',
  'x-app-id': 'X-APP-ID',
  'x-platform': 'X-PLATFORM',
  'x-version': 'X-VERSION',
  accept: 'Accept',
  'content-type': 'Content-Type',
};

export interface MobileContext {
  userId: string;
  appIdHeader: string;
  platform: Platform | undefined;
  /** X-VERSION: the SDK version. */
  sdkVersion: string | undefined;
}

/** Checks the rule's headers (names the first one missing) and reads the caller's identity from them. */
export function readMobileHeaders(
  headers: Record<string, string | undefined>,
  rule: MobileHeaderRule,
  hasBody: boolean,
): MobileContext {
  const required: string[] = [...MOBILE_HEADER_RULES[rule], ...(hasBody ? ['content-type'] : [])];
  for (const name of required) {
    if (!headers[name]?.trim()) {
      throw new AppError('MISSING_REQUIRED_HEADER', `Missing required header ${DISPLAY[name] ?? name}`);
    }
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
