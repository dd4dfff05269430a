/**
 * Who an authenticated request comes from, as the endpoint wrappers (lib/http/endpoint.ts) hand
 * it to the handlers and the use cases: the API key's app, and on the mobile API the user and
 * device the headers name.
 */
import type { ApiKeyKind } from '../core/ids.js';
import type { Platform } from '../schemas/common.js';
import type { RateLimitTier } from './rate-limit.js';

/** The app behind an active API key of the kind the API takes. */
export interface Caller {
  appId: string;
  keyId: string;
  kind: ApiKeyKind;
  /** Decides the key's rate limit. */
  tier: RateLimitTier;
}

/** What the mobile headers say about the request (lib/http/mobile-headers.ts reads them). */
export interface MobileIdentity {
  userId: string;
  appIdHeader: string;
  platform: Platform | undefined;
  /** X-VERSION: the SDK version. */
  sdkVersion: string | undefined;
}

export interface MobileCaller extends Caller, MobileIdentity {
  /** A signed user token proved X-USER-ID (the app requires them): what names another user is refused. */
  userProven: boolean;
}
