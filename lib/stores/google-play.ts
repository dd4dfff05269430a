/**
 * Google Play: `receipt_data` is a purchase token, or a base64 JSON purchase object carrying
 * packageName, productId and purchaseToken. The verifier signs in as the app's service account
 * (OAuth 2.0 JWT bearer grant), reads purchases.subscriptionsv2.get, maps it to a transaction,
 * and acknowledges a purchase that is not acknowledged yet (Google refunds those after 3 days).
 * The token and API base URLs are configuration, so tests run these HTTP calls against a stand-in.
 */
import { createPrivateKey, sign } from 'node:crypto';
import { config } from '../core/config.js';
import { AppError, invalidReceipt } from '../core/errors.js';
import { type HttpAnswer, type HttpRequestOptions, httpSend } from '../core/http-client.js';
import { base64urlJson } from '../core/json.js';
import type { GooglePlaySettings } from '../data/store-settings.js';
import { retryAfterSecondsOf } from '../domain/store-call-budget.js';
import type { StorePurchaseState, StoreVerifier, VerifiedTransaction } from '../domain/store-purchase.js';
import { isSignedTransaction } from './signed-receipt.js';
import { StoreThrottledError, UnknownToStoreError } from './store-answers.js';

const SCOPE = 'https://www.googleapis.com/auth/androidpublisher';

/** The fields of SubscriptionPurchaseV2 we read. */
export interface SubscriptionPurchaseV2 {
  startTime?: string;
  subscriptionState?: string;
  /** Deprecated by Google for lineItems[].latestSuccessfulOrderId; still sent. */
  latestOrderId?: string;
  linkedPurchaseToken?: string;
  acknowledgementState?: string;
  testPurchase?: object;
  /** What the app set in BillingFlowParams (setObfuscatedAccountId): the buyer's account. */
  externalAccountIdentifiers?: { obfuscatedExternalAccountId?: string };
  lineItems?: {
    productId?: string;
    expiryTime?: string;
    latestSuccessfulOrderId?: string;
    autoRenewingPlan?: {
      autoRenewEnabled?: boolean;
      /** Money in Google's form: units (a decimal string) plus nanos (billionths). */
      recurringPrice?: { currencyCode?: string; units?: string; nanos?: number };
    };
    offerPhase?: { freeTrial?: object };
    offerDetails?: { offerTags?: string[] };
    /** The product the line item becomes at its next renewal (a deferred plan change). */
    deferredItemReplacement?: { productId?: string };
  }[];
}

/** What a Google Play purchase token looks like (bounded: it becomes a table key). */
export const PURCHASE_TOKEN_PATTERN = /^[A-Za-z0-9._:-]{10,2000}$/;

interface PurchaseReference {
  purchaseToken: string;
  packageName?: string;
}

/** The purchase a Google Play receipt_data names: a bare token, or a base64 JSON purchase object. */
export function purchaseReference(receiptData: string): PurchaseReference {
  const trimmed = receiptData.trim();
  try {
    const decoded: unknown = JSON.parse(Buffer.from(trimmed, 'base64').toString('utf8'));
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a value these guards let through throws or fails the last test, and the catch below reads it as a bare token alike
    if (decoded && typeof decoded === 'object' && typeof (decoded as PurchaseReference).purchaseToken === 'string') {
      const { purchaseToken, packageName } = decoded as PurchaseReference;
      return { purchaseToken, ...(typeof packageName === 'string' ? { packageName } : {}) };
    }
  } catch {
    // not a purchase object: a bare token
  }
  // A signed transaction (App Store, test store) is no purchase token: Google is not asked about it.
  if (isSignedTransaction(trimmed))
    throw invalidReceipt('receipt_data is a signed App Store transaction, not a Google Play purchase');
  if (!PURCHASE_TOKEN_PATTERN.test(trimmed))
    throw invalidReceipt('receipt_data is neither a Google Play purchase token nor a purchase object');
  return { purchaseToken: trimmed };
}

const unavailable = (message: string, cause?: unknown) =>
  new AppError('VERIFICATION_FAILED', message, { retryable: true, cause });

const unknownToken = (status: number) =>
  new UnknownToStoreError(`Google Play does not know this purchase token (${status})`);

async function call(url: string, init: Omit<HttpRequestOptions, 'timeoutMs'>): Promise<HttpAnswer> {
  let answer: HttpAnswer;
  try {
    answer = await httpSend(url, { ...init, timeoutMs: config.storeTimeoutMs });
  } catch (error) {
    throw unavailable(
      `Google Play did not answer (${(error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message}); retry`,
      error,
    );
  }
  // Google's 429: the quota (per Google Cloud project) is spent for now, whichever call it was.
  if (answer.status === 429)
    throw new StoreThrottledError(
      'Google Play answered 429; retry later',
      retryAfterSecondsOf(answer.header('retry-after')),
    );
  return answer;
}

/** Access tokens by service account, reused until a minute before they expire. */
const tokens = new Map<string, { token: string; until: number }>();

export interface GoogleEndpoints {
  tokenUrl: string;
  apiBaseUrl: string;
  /** Google's OIDC keys, for authenticating Pub/Sub pushes (google-play-notifications.ts). */
  jwksUrl?: string;
}

export const configuredEndpoints = (): GoogleEndpoints => ({
  tokenUrl: config.googleOAuthTokenUrl,
  apiBaseUrl: config.googlePlayApiBaseUrl,
  jwksUrl: config.googleOidcJwksUrl,
});

async function accessToken(settings: GooglePlaySettings, endpoints: GoogleEndpoints): Promise<string> {
  const account = settings.service_account;
  const cached = tokens.get(account.client_email);
  if (cached && cached.until > Date.now()) return cached.token;
  const now = Math.floor(Date.now() / 1000);
  const input = `${base64urlJson({ alg: 'RS256', typ: 'JWT' })}.${base64urlJson({ iss: account.client_email, scope: SCOPE, aud: endpoints.tokenUrl, iat: now, exp: now + 3600 })}`;
  let assertion: string;
  try {
    assertion = `${input}.${sign('sha256', Buffer.from(input), createPrivateKey(account.private_key)).toString('base64url')}`;
  } catch (error) {
    throw new AppError(
      'VERIFICATION_FAILED',
      'the Google service account private key cannot sign (stores google set)',
      { cause: error },
    );
  }
  const response = await call(endpoints.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
  });
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: string;
    expires_in?: number;
    error?: string;
  };
  if (!response.ok || !body.access_token) {
    throw unavailable(
      `Google refused the service account sign-in (${response.status}${body.error ? ` ${body.error}` : ''}); check stores google set`,
    );
  }
  tokens.set(account.client_email, {
    token: body.access_token,
    until: Date.now() + Math.max(0, (body.expires_in ?? 3600) - 60) * 1000,
  });
  return body.access_token;
}

const purchasesUrl = (endpoints: GoogleEndpoints, packageName: string) =>
  `${endpoints.apiBaseUrl}/androidpublisher/v3/applications/${encodeURIComponent(packageName)}/purchases`;

/** Google's Money: `units` a decimal string of whole units, `nanos` billionths (same sign). */
function majorUnits(money: { units?: string; nanos?: number } | undefined): number | null {
  if (!money || (money.units === undefined && money.nanos === undefined)) return null;
  const value = Number(money.units ?? 0) + (money.nanos ?? 0) / 1e9;
  // Micro-units are finer than any currency; rounding drops the binary fraction's noise.
  return Number.isFinite(value) ? Math.round(value * 1e6) / 1e6 : null;
}

/** Paid but not yet, or never: Google knows the purchase, but there is nothing to grant. */
const unpaid = (state: string | undefined): boolean =>
  state === 'SUBSCRIPTION_STATE_PENDING' || state === 'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED';

/** The purchase's latest transaction (its first line item: a subscription purchase has one). */
function latestTransaction(purchase: SubscriptionPurchaseV2, purchaseToken: string): VerifiedTransaction {
  const item = purchase.lineItems?.[0];
  if (!item?.productId || !item.expiryTime || !purchase.startTime)
    throw invalidReceipt('the Google Play purchase has no subscription line item');
  const recurringPrice = item.autoRenewingPlan?.recurringPrice;
  const price = majorUnits(recurringPrice);
  return {
    store: 'google_play',
    platform: 'android',
    environment: purchase.testPurchase ? 'Sandbox' : 'Production',
    // Each renewal has its own order id (GPA.x..0, ..1); the token identifies the purchase throughout.
    transaction_id: item.latestSuccessfulOrderId ?? purchase.latestOrderId ?? `${purchaseToken}:${item.expiryTime}`,
    original_transaction_id: purchaseToken,
    product_id: item.productId,
    purchase_date: new Date(purchase.startTime).toISOString(),
    expires_at: new Date(item.expiryTime).toISOString(),
    trial: item.offerPhase?.freeTrial !== undefined,
    price,
    currency: price !== null && recurringPrice?.currencyCode ? recurringPrice.currencyCode : null,
    revoked: false,
    app_account_token:
      typeof purchase.externalAccountIdentifiers?.obfuscatedExternalAccountId === 'string'
        ? purchase.externalAccountIdentifiers.obfuscatedExternalAccountId
        : null,
  };
}

function toTransaction(purchase: SubscriptionPurchaseV2, purchaseToken: string): VerifiedTransaction {
  if (unpaid(purchase.subscriptionState))
    throw new AppError(
      'INVALID_RECEIPT',
      `the Google Play purchase is not paid (${purchase.subscriptionState === 'SUBSCRIPTION_STATE_PENDING' ? 'pending' : 'pending, then canceled'})`,
    );
  return latestTransaction(purchase, purchaseToken);
}

/**
 * The store's truth about a purchase, from its SubscriptionPurchaseV2; null when there is nothing
 * to grant (a payment still pending, or a pending purchase canceled before it was paid).
 */
export function purchaseStateOf(
  purchase: SubscriptionPurchaseV2,
  purchaseToken: string,
  asOf: string,
): StorePurchaseState | null {
  if (unpaid(purchase.subscriptionState)) return null;
  const transaction = latestTransaction(purchase, purchaseToken);
  const item = purchase.lineItems![0]!;
  const grace = purchase.subscriptionState === 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD';
  const replacement = item.deferredItemReplacement?.productId;
  return {
    ...transaction,
    renewal: {
      auto_renew: item.autoRenewingPlan?.autoRenewEnabled === true,
      renewal_product_id: replacement && replacement !== transaction.product_id ? replacement : null,
      billing_issue: grace || purchase.subscriptionState === 'SUBSCRIPTION_STATE_ON_HOLD',
      // In its grace period Google extends the line item's expiry to the grace period's end.
      grace_period_expires_at: grace ? transaction.expires_at : null,
    },
    linked_original_transaction_id: purchase.linkedPurchaseToken ?? null,
    as_of: asOf,
  };
}

/**
 * Reads purchases.subscriptionsv2.get as the app's service account. Undefined when Google does
 * not know the token (400, 404, 410: never issued, another app's, or expired long ago); a Google
 * that cannot be asked is VERIFICATION_FAILED, retryable. The access token comes back for
 * follow-up calls.
 */
export async function readSubscriptionPurchase(
  settings: GooglePlaySettings,
  purchaseToken: string,
  endpoints: GoogleEndpoints = configuredEndpoints(),
): Promise<{ purchase: SubscriptionPurchaseV2 | undefined; status: number; accessToken: string }> {
  const token = await accessToken(settings, endpoints);
  const response = await call(
    `${purchasesUrl(endpoints, settings.package_name)}/subscriptionsv2/tokens/${encodeURIComponent(purchaseToken)}`,
    {
      headers: {
        authorization: `Bearer ${token}`,
        // Stryker disable next-line StringLiteral: Google answers JSON whatever the request accepts; the header says what we read
        accept: 'application/json',
      },
    },
  );
  if (response.status === 400 || response.status === 404 || response.status === 410) {
    return { purchase: undefined, status: response.status, accessToken: token };
  }
  if (response.status === 401 || response.status === 403) {
    tokens.delete(settings.service_account.client_email);
    throw unavailable(
      `Google Play refused the service account (${response.status}); check its Play Console permissions`,
    );
  }
  if (!response.ok) throw unavailable(`Google Play answered ${response.status}; retry`);
  try {
    return { purchase: (await response.json()) as SubscriptionPurchaseV2, status: response.status, accessToken: token };
  } catch (error) {
    throw unavailable('Google Play sent an unreadable answer; retry', error);
  }
}

/**
 * The store's truth about a purchase now, from purchases.subscriptionsv2.get (notifications, the
 * sweeper). Null when there is nothing to grant (see purchaseStateOf); INVALID_RECEIPT when Google
 * does not know the token (UnknownToStoreError); VERIFICATION_FAILED, retryable, when Google cannot
 * be asked (StoreThrottledError on its 429).
 * `asOf` (ISO) defaults to the time of the read.
 */
export async function googlePurchaseState(
  settings: GooglePlaySettings,
  purchaseToken: string,
  endpoints: GoogleEndpoints = configuredEndpoints(),
  asOf?: string,
): Promise<StorePurchaseState | null> {
  const { purchase, status } = await readSubscriptionPurchase(settings, purchaseToken, endpoints);
  if (!purchase) throw unknownToken(status);
  return purchaseStateOf(purchase, purchaseToken, asOf ?? new Date().toISOString());
}

/** `endpoints` default to the configured (real) Google URLs; tests pass a stand-in's. */
export function googlePlayVerifier(
  settings: GooglePlaySettings,
  endpoints: GoogleEndpoints = configuredEndpoints(),
): StoreVerifier {
  return {
    async verify(receiptData: string): Promise<VerifiedTransaction> {
      const { purchaseToken, packageName } = purchaseReference(receiptData);
      if (packageName && packageName !== settings.package_name) {
        throw invalidReceipt(`the purchase belongs to another app (package ${packageName})`);
      }
      const {
        purchase,
        status,
        accessToken: token,
      } = await readSubscriptionPurchase(settings, purchaseToken, endpoints);
      if (!purchase) throw unknownToken(status);
      const transaction = toTransaction(purchase, purchaseToken);
      if (purchase.acknowledgementState === 'ACKNOWLEDGEMENT_STATE_PENDING') {
        const ack = await call(
          `${purchasesUrl(endpoints, settings.package_name)}/subscriptions/${encodeURIComponent(transaction.product_id)}/tokens/${encodeURIComponent(purchaseToken)}:acknowledge`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              // Stryker disable next-line StringLiteral: the acknowledgement's body is optional (a developerPayload), its type with it
              'content-type': 'application/json',
            },
            // Stryker disable next-line StringLiteral: as above
            body: '{}',
          },
        );
        if (!ack.ok) throw unavailable(`Google Play did not accept the acknowledgement (${ack.status}); retry`);
      }
      return transaction;
    },
  };
}
