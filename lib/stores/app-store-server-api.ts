/**
 * Legacy app receipts (StoreKit 1): once the receipt's signature is verified
 * (lib/stores/app-receipt.ts), the App Store Server API, authenticated with the app's App Store
 * Connect key, answers for a transaction it lists with signed transactions, which are verified
 * like StoreKit 2 ones. The API base URL follows the environment, or
 * APP_STORE_SERVER_API_BASE_URL (tests: a stand-in speaking the same protocol,
 * test/support/app-store-standin.ts).
 *
 * Requests and bearer tokens are made as Apple's App Store Server Library makes them (Get
 * Transaction Info, Get All Subscription Statuses; an ES256 JWT with kid, iss, aud
 * appstoreconnect-v1, bid and a 5-minute exp), with node:crypto and node:http (lib/core/http-client.ts): the library costs
 * the verifying functions most of their bundle (docs/decisions/app-store-verifier.md).
 */
import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import * as z from 'zod/mini';
import { config } from '../core/config.js';
import { AppError, invalidReceipt } from '../core/errors.js';
import { httpSend } from '../core/http-client.js';
import { base64urlJson } from '../core/json.js';
import { retryAfterSecondsOf } from '../domain/store-call-budget.js';
import { define } from '../schemas/define.js';
import { StoreThrottledError, UnknownToStoreError } from './store-answers.js';

export interface ServerApiCredentials {
  issuer_id: string;
  key_id: string;
  /** The .p8 private key (PEM). */
  private_key: string;
}

const BASE_URLS = {
  Production: 'https://api.storekit.apple.com',
  Sandbox: 'https://api.storekit-sandbox.apple.com',
} as const;
const TOKEN_LIFETIME_SECONDS = 300;

const transactionInfoResponse = /* @__PURE__ */ define(() =>
  z.object({ signedTransactionInfo: z.optional(z.string()) }),
);
const statusResponse = /* @__PURE__ */ define(() =>
  z.object({
    data: z.optional(
      z.array(
        z.object({
          lastTransactions: z.optional(
            z.array(
              z.object({
                originalTransactionId: z.optional(z.string()),
                status: z.optional(z.number()),
                signedTransactionInfo: z.optional(z.string()),
                signedRenewalInfo: z.optional(z.string()),
              }),
            ),
          ),
        }),
      ),
    ),
  }),
);

/** The API's bearer token: an ES256 JWT signed with the App Store Connect key. */
function appStoreBearerToken(credentials: ServerApiCredentials, bundleId: string, now = Date.now()): string {
  let key: KeyObject;
  try {
    key = createPrivateKey(credentials.private_key);
  } catch (error) {
    throw new AppError(
      'VERIFICATION_FAILED',
      'the App Store Server API key is not a valid .p8 private key (stores apple set --key-file)',
      { retryable: true, cause: error },
    );
  }
  const iat = Math.floor(now / 1000);
  const input = `${base64urlJson({ alg: 'ES256', typ: 'JWT', kid: credentials.key_id })}.${base64urlJson({ bid: bundleId, iat, exp: iat + TOKEN_LIFETIME_SECONDS, aud: 'appstoreconnect-v1', iss: credentials.issuer_id })}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** An answer other than 2xx, with Apple's errorCode when the body carries one. */
class AppStoreApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly errorCode: number | undefined,
  ) {
    super(`App Store Server API answered ${httpStatus}${errorCode === undefined ? '' : ` (${errorCode})`}`);
  }
}

function mapApiError(error: unknown, unknownTo = "this receipt's transaction"): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof AppStoreApiError) {
    // Apple's 404s that say to try again (AccountNotFoundRetryableError, AppNotFoundRetryableError,
    // OriginalTransactionIdNotFoundRetryableError): the App Store does not know it yet, not at all.
    const retryable = error.errorCode !== undefined && [4040002, 4040004, 4040006].includes(error.errorCode);
    if ((error.httpStatus === 404 && !retryable) || error.httpStatus === 400) {
      return new UnknownToStoreError(`the App Store does not know ${unknownTo} (${error.httpStatus})`, error);
    }
    if (error.httpStatus === 401) {
      return new AppError(
        'VERIFICATION_FAILED',
        'the App Store Server API refused our credentials (stores apple set --issuer-id --key-id --key-file)',
        { retryable: true, cause: error },
      );
    }
    return new AppError('VERIFICATION_FAILED', `the App Store Server API answered ${error.httpStatus}; retry`, {
      retryable: true,
      cause: error,
    });
  }
  const timedOut = (error as Error).name === 'TimeoutError';
  return new AppError(
    'VERIFICATION_FAILED',
    `the App Store Server API did not answer (${timedOut ? 'timeout' : (error as Error).message}); retry`,
    { retryable: true, cause: error },
  );
}

function appStoreApi(credentials: ServerApiCredentials, bundleId: string, environment: keyof typeof BASE_URLS) {
  const sandboxOverride = environment === 'Sandbox' ? config.appStoreSandboxApiBaseUrl : undefined;
  const baseUrl = sandboxOverride ?? config.appStoreServerApiBaseUrl ?? BASE_URLS[environment];
  return async function get<T>(path: string, schema: z.ZodMiniType<T>): Promise<T> {
    const response = await httpSend(`${baseUrl}${path}`, {
      headers: {
        authorization: `Bearer ${appStoreBearerToken(credentials, bundleId)}`,
        // Stryker disable next-line StringLiteral: Apple answers JSON whatever the request accepts; the header says what we read
        accept: 'application/json',
      },
      timeoutMs: config.storeTimeoutMs,
    });
    if (response.status === 429)
      throw new StoreThrottledError(
        'the App Store Server API answered 429; retry later',
        retryAfterSecondsOf(response.header('retry-after')),
      );
    if (!response.ok) {
      const body = (await response.json().catch(() => undefined)) as { errorCode?: unknown } | undefined;
      throw new AppStoreApiError(response.status, typeof body?.errorCode === 'number' ? body.errorCode : undefined);
    }
    const parsed = schema.safeParse(await response.json());
    if (!parsed.success) throw new Error('its answer is not in the documented format');
    return parsed.data;
  };
}

/**
 * The signed transactions the App Store holds for the receipt: the one the receipt names, and the
 * latest of its subscription (renewals since the receipt was issued). A Production app's receipt
 * the production API does not know is asked of the sandbox (Apple's rule: App Review buys with
 * sandbox accounts against the production build); `decode` judges the environment it states.
 */
export async function fetchSignedTransactions(
  credentials: ServerApiCredentials,
  bundleId: string,
  environment: keyof typeof BASE_URLS,
  transactionId: string,
  decode: (jws: string) => Promise<{ originalTransactionId?: string }>,
): Promise<string> {
  const ask = (asked: keyof typeof BASE_URLS) =>
    signedTransactionsIn(appStoreApi(credentials, bundleId, asked), transactionId, decode);
  try {
    return await ask(environment);
  } catch (error) {
    const unknownHere = error instanceof AppStoreApiError && error.httpStatus === 404;
    if (environment !== 'Production' || !unknownHere) throw mapApiError(error);
  }
  try {
    return await ask('Sandbox');
  } catch (error) {
    throw mapApiError(error);
  }
}

async function signedTransactionsIn(
  get: ReturnType<typeof appStoreApi>,
  transactionId: string,
  decode: (jws: string) => Promise<{ originalTransactionId?: string }>,
): Promise<string> {
  const id = encodeURIComponent(transactionId);
  const { signedTransactionInfo } = await get(`/inApps/v1/transactions/${id}`, transactionInfoResponse);
  if (!signedTransactionInfo) throw invalidReceipt('the App Store returned no transaction for this receipt');
  const { originalTransactionId } = await decode(signedTransactionInfo);
  const statuses = await get(`/inApps/v1/subscriptions/${id}`, statusResponse);
  return lastTransactionOf(statuses, originalTransactionId)?.signedTransactionInfo ?? signedTransactionInfo;
}

/** Get All Subscription Statuses' entry of one purchase, when it holds a signed transaction. */
function lastTransactionOf(statuses: z.infer<typeof statusResponse>, originalTransactionId: string | undefined) {
  for (const group of statuses.data ?? []) {
    for (const last of group.lastTransactions ?? []) {
      if (last.originalTransactionId === originalTransactionId && last.signedTransactionInfo)
        return { ...last, signedTransactionInfo: last.signedTransactionInfo };
    }
  }
  return undefined;
}

/** One purchase's entry of Get All Subscription Statuses: its latest transaction and renewal, signed. */
export interface SignedPurchaseState {
  signedTransactionInfo: string;
  signedRenewalInfo?: string | undefined;
  /** 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked. */
  status?: number | undefined;
}

/**
 * The App Store's state of one purchase now (Get All Subscription Statuses, the entry of this
 * original transaction), as `decode` verifies and reads it with the time it was read (ms).
 */
export async function fetchAppStorePurchaseState<T>(
  credentials: ServerApiCredentials,
  bundleId: string,
  environment: keyof typeof BASE_URLS,
  originalTransactionId: string,
  decode: (signed: SignedPurchaseState, readAt: number) => T,
): Promise<T> {
  const get = appStoreApi(credentials, bundleId, environment);
  try {
    const statuses = await get(`/inApps/v1/subscriptions/${encodeURIComponent(originalTransactionId)}`, statusResponse);
    const readAt = Date.now();
    const last = lastTransactionOf(statuses, originalTransactionId);
    if (last) return decode(last, readAt);
    throw invalidReceipt('the App Store lists no subscription status for this purchase');
  } catch (error) {
    throw mapApiError(error, 'this purchase');
  }
}
