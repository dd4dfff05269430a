import { DEFAULT_RATE_LIMITS, RATE_LIMIT_TIERS, type RateLimitTier } from '../domain/rate-limit.js';
import { DEFAULT_REPORT_QUOTAS, type ReportQuotas } from '../domain/report-quota.js';
import { retryScheduleFrom } from '../domain/webhook-retry.js';
import { DEFAULT_TABLE_NAME } from './defaults.js';

/**
 * Runtime configuration, read once from the environment when a module first imports it.
 * In Lambda the CDK stack sets these; locally `npm start`, the CLI and the tests do.
 *
 * `config` holds what every function may read. The settings of one concern (webhook deliveries,
 * mobile reports, offerings) are objects of their own, each read only by a bundle that uses it
 * (their reads are pure for esbuild): a function that never delivers a webhook neither carries
 * nor checks the webhook settings. `readConfig` reads them all, as `npm start` and the tests do.
 */
export interface SharedConfig {
  /** The single DynamoDB table (unset for functions that never touch it, e.g. the stream publisher). */
  tableName: string | undefined;
  /** Set for DynamoDB Local; unset in AWS. */
  dynamodbEndpoint: string | undefined;
  region: string;
  /**
   * How long a warm function may act on what it read about an API key: an sdk key as stored
   * (so a revocation reaches the mobile API within this time), and any key's absence. At most 60;
   * 0 disables the cache.
   */
  keyCacheTtlSeconds: number;
  /**
   * How long a warm function answers customer info with the app's entitlement definitions it read
   * (ENTITLEMENTS_CACHE_TTL_SECONDS, at most 300; 0 reads them on every request).
   */
  entitlementsCacheTtlSeconds: number;
  /** Set in AWS Lambda; decides whether a missing TABLE_NAME is fatal. */
  inLambda: boolean;
  /** The stack's EventBridge bus; unset locally, where the local bus dispatches in-process. */
  eventBusName: string | undefined;
  /** SQS queue that receives webhook events whose retries are exhausted; unset locally. */
  deadLetterQueueUrl: string | undefined;
  /** Secrets Manager name prefix of store credentials (`<prefix><app>/<store>`); unset locally (table). */
  storeSecretsPrefix: string | undefined;
  /** Base URLs of the store APIs: configuration, so tests can point them at local stand-ins. */
  googleOAuthTokenUrl: string;
  googlePlayApiBaseUrl: string;
  /** Google's published OIDC keys (JWKS): they sign the tokens Pub/Sub attaches to pushes (RTDN). */
  googleOidcJwksUrl: string;
  /** Overrides the App Store Server API URL of the app's environment (tests: a stand-in). */
  appStoreServerApiBaseUrl: string | undefined;
  /** Overrides the Sandbox API's URL alone (tests: a second stand-in); else as appStoreServerApiBaseUrl. */
  appStoreSandboxApiBaseUrl: string | undefined;
  /** Timeout of one call to a store API. */
  storeTimeoutMs: number;
  /**
   * A store subscription that renews by itself is expired this long after its period ends unless
   * the store said otherwise (a notification, or the sweeper asking the store).
   */
  storeExpiryMarginSeconds: number;
  /** Requests per minute per API key, by the key's tier (RATE_LIMIT_<TIER>_PER_MINUTE). */
  rateLimits: Record<RateLimitTier, number>;
  /**
   * Each app's budget of verifications that ask a store about a purchase it has not told us of
   * (STORE_CALL_BURST, STORE_CALLS_PER_MINUTE; docs/security.md#outbound-store-calls).
   */
  storeCallBudget: { burst: number; perMinute: number };
  /** How long "the store does not know this token or receipt" is remembered (STORE_UNKNOWN_TTL_SECONDS; 0: not). */
  storeUnknownTtlSeconds: number;
}

/** What the functions that deliver, retry and keep webhook deliveries read. */
export interface WebhookConfig {
  /** Delays between webhook attempts (WEBHOOK_RETRY_SCHEDULE_SECONDS shortens it for tests). */
  webhookRetrySchedule: readonly number[];
  /** Per-attempt timeout of a webhook delivery. */
  webhookTimeoutMs: number;
  /**
   * WEBHOOK_ALLOW_PRIVATE_TARGETS=1: webhooks may go to loopback, private and link-local
   * addresses. For local development only (a receiver on 127.0.0.1); never set in AWS.
   */
  webhookAllowPrivateTargets: boolean;
  /** A webhook delivery record is deleted (TTL) this many days after its last attempt or next try (at least 1). */
  webhookDeliveryRetentionDays: number;
}

/** What the functions that take and keep mobile reports read. */
export interface ReportConfig {
  /** Reported events, sessions and reports are deleted (TTL) this many days after they arrive. */
  eventRetentionDays: number;
  /** What one app's mobile reports may cost (REPORT_QUOTA_VARIABLES; docs/security.md#report-quotas). */
  reportQuotas: ReportQuotas;
}

/** What the functions that answer what an app shows read. */
export interface OfferingsConfig {
  /**
   * How long a warm function answers what an app shows (offerings, placements, remote switches
   * and the rule segments that target them) from what it read (OFFERINGS_CACHE_TTL_SECONDS, at
   * most 300; 0 reads them on every request).
   */
  offeringsCacheTtlSeconds: number;
}

/** Every setting, as `readConfig` reads them. */
export type Config = SharedConfig & WebhookConfig & ReportConfig & OfferingsConfig;

/** The environment variable of each report quota. */
export const REPORT_QUOTA_VARIABLES: Readonly<Record<keyof ReportQuotas, string>> = {
  eventsPerMinute: 'REPORT_EVENTS_PER_APP_PER_MINUTE',
  storedBytes: 'REPORT_STORED_BYTES_PER_APP',
  typesPerUser: 'REPORT_TYPES_PER_USER',
};

/** The environment variable that sets a tier's limit, e.g. RATE_LIMIT_PREMIUM_PER_MINUTE. */
export const rateLimitVariable = (tier: RateLimitTier): string => `RATE_LIMIT_${tier.toUpperCase()}_PER_MINUTE`;

/** An integer setting within [min, max]; unset or empty: the fallback. */
function readInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Infinity): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  }
  if (value < min || value > max) {
    throw new Error(`${name} must be at ${value < min ? `least ${min}` : `most ${max}`}, got "${value}"`);
  }
  return value;
}

/**
 * Where paywall and guide page bundles are downloaded from (PAYWALLS_BASE_URL: CloudFront's
 * `/paywalls` in AWS, `npm start`'s own locally); unset, bundles have no download URL. Read when
 * answered, not once: `npm start` knows its own URL only when it listens.
 */
export const paywallsBaseUrl = (): string | undefined => process.env.PAYWALLS_BASE_URL || undefined;

/** Revocation latency of sdk keys is this TTL: it must stay within a minute. */
export const MAX_KEY_CACHE_TTL_SECONDS = 60;

/** A change of an app's entitlements reaches every warm function within this many seconds. */
export const MAX_ENTITLEMENTS_CACHE_TTL_SECONDS = 300;
/** A change of what an app shows (`offerings put`, `switches put`) reaches every warm function within this many seconds. */
export const MAX_OFFERINGS_CACHE_TTL_SECONDS = 300;

/** An opt-in: `1` on, unset, empty or `0` off, anything else refused (a typo must not look like "on"). */
function readFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new Error(`${name} must be 1 or 0, got "${raw}"`);
}

/** Delivery records (payloads naming users) are kept a month by default, never forever. */
export const DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

/** What every function may read: `config`. */
function readSharedConfig(env: NodeJS.ProcessEnv = process.env): SharedConfig {
  const inLambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
  const tableName = env.TABLE_NAME || (inLambda ? undefined : DEFAULT_TABLE_NAME);
  return {
    tableName,
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    keyCacheTtlSeconds: readInt(env, 'KEY_CACHE_TTL_SECONDS', 30, 0, MAX_KEY_CACHE_TTL_SECONDS),
    entitlementsCacheTtlSeconds: readInt(
      env,
      'ENTITLEMENTS_CACHE_TTL_SECONDS',
      60,
      0,
      MAX_ENTITLEMENTS_CACHE_TTL_SECONDS,
    ),
    inLambda,
    eventBusName: env.EVENT_BUS_NAME || undefined,
    deadLetterQueueUrl: env.DEAD_LETTER_QUEUE_URL || undefined,
    storeSecretsPrefix: env.STORE_SECRETS_PREFIX || undefined,
    googleOAuthTokenUrl: env.GOOGLE_OAUTH_TOKEN_URL || 'https://oauth2.googleapis.com/token',
    googlePlayApiBaseUrl: env.GOOGLE_PLAY_API_BASE_URL || 'https://androidpublisher.googleapis.com',
    googleOidcJwksUrl: env.GOOGLE_OIDC_JWKS_URL || 'https://www.googleapis.com/oauth2/v3/certs',
    appStoreServerApiBaseUrl: env.APP_STORE_SERVER_API_BASE_URL || undefined,
    appStoreSandboxApiBaseUrl: env.APP_STORE_SERVER_API_SANDBOX_BASE_URL || undefined,
    storeTimeoutMs: readInt(env, 'STORE_TIMEOUT_MS', 10_000),
    storeExpiryMarginSeconds: readInt(env, 'STORE_EXPIRY_MARGIN_SECONDS', 3600),
    rateLimits: Object.fromEntries(
      RATE_LIMIT_TIERS.map((tier) => [tier, readInt(env, rateLimitVariable(tier), DEFAULT_RATE_LIMITS[tier])]),
    ) as Record<RateLimitTier, number>,
    storeCallBudget: {
      // Far below Google's 3,000 queries a minute per Cloud project; at least 1: a bucket that never
      // holds a call would refuse every new purchase.
      burst: Math.max(1, readInt(env, 'STORE_CALL_BURST', 60)),
      perMinute: Math.max(1, readInt(env, 'STORE_CALLS_PER_MINUTE', 120)),
    },
    storeUnknownTtlSeconds: readInt(env, 'STORE_UNKNOWN_TTL_SECONDS', 600),
  };
}

function readWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  return {
    webhookRetrySchedule: retryScheduleFrom(env.WEBHOOK_RETRY_SCHEDULE_SECONDS),
    webhookTimeoutMs: readInt(env, 'WEBHOOK_TIMEOUT_MS', 15_000),
    webhookDeliveryRetentionDays: readInt(
      env,
      'WEBHOOK_DELIVERY_RETENTION_DAYS',
      DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS,
      1,
    ),
    webhookAllowPrivateTargets: readFlag(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'),
  };
}

function readReportConfig(env: NodeJS.ProcessEnv = process.env): ReportConfig {
  return {
    eventRetentionDays: readInt(env, 'EVENT_RETENTION_DAYS', 90),
    reportQuotas: Object.fromEntries(
      Object.entries(REPORT_QUOTA_VARIABLES).map(([quota, name]) => [
        quota,
        readInt(env, name, DEFAULT_REPORT_QUOTAS[quota as keyof ReportQuotas]),
      ]),
    ) as unknown as ReportQuotas,
  };
}

function readOfferingsConfig(env: NodeJS.ProcessEnv = process.env): OfferingsConfig {
  return {
    offeringsCacheTtlSeconds: readInt(env, 'OFFERINGS_CACHE_TTL_SECONDS', 60, 0, MAX_OFFERINGS_CACHE_TTL_SECONDS),
  };
}

/** Every setting (`npm start` and the tests; a function reads only the objects below it uses). */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    ...readSharedConfig(env),
    ...readOfferingsConfig(env),
    ...readWebhookConfig(env),
    ...readReportConfig(env),
  };
}

export const config: SharedConfig = readSharedConfig();
export const webhookConfig: WebhookConfig = /* @__PURE__ */ readWebhookConfig();
export const reportConfig: ReportConfig = /* @__PURE__ */ readReportConfig();
export const offeringsConfig: OfferingsConfig = /* @__PURE__ */ readOfferingsConfig();
