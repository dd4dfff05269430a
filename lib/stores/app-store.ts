/**
 * App Store: StoreKit 2 signed transactions (JWS), verified offline against Apple Root CA G3
 * (embedded in lib/stores/apple-root-ca-g3.ts) by lib/stores/apple-signed-data.ts, which applies
 * the rules of Apple's App Store Server Library: the certificate chain, the signature, then the
 * bundle id and the environment. Online checks (OCSP) are off, so the chain is judged at the
 * transaction's signedDate, as Apple's library does.
 *
 * Legacy (StoreKit 1) app receipts: the receipt's PKCS#7 signature is verified against Apple Inc.
 * Root (lib/stores/app-receipt.ts) and its bundle id must be the app's; the App Store Server API
 * then answers for a transaction the receipt lists, and its answer counts only for a purchase the
 * receipt lists (same original transaction): a receipt claims its own purchases, nobody else's.
 */
import { X509Certificate } from 'node:crypto';
import * as z from 'zod/mini';
import { AppError, invalidReceipt } from '../core/errors.js';
import type { StoreVerifier, VerifiedTransaction } from '../domain/store-purchase.js';
import { define } from '../schemas/define.js';
import {
  type AppReceipt,
  AppReceiptError,
  type AppReceiptRejection,
  purchaseToAsk,
  readSignedReceipt,
  verifyAppReceipt,
} from './app-receipt.js';
import { fetchSignedTransactions, type ServerApiCredentials } from './app-store-server-api.js';
import { APPLE_INC_ROOT_PEM } from './apple-inc-root.js';
import { APPLE_ROOT_CA_G3_PEM } from './apple-root-ca-g3.js';
import { type AppleRejection, AppleSignedDataError, verifyAppleSignedData } from './apple-signed-data.js';
import { jwsOf } from './signed-receipt.js';

export const APPLE_ROOT_CA_G3 = new X509Certificate(APPLE_ROOT_CA_G3_PEM);
let appleIncRoot: X509Certificate | undefined;
/** Apple Inc. Root, parsed when a legacy receipt first needs it (StoreKit 2 transactions never do): not at every cold start. */
export const appleIncRootCertificate = (): X509Certificate =>
  (appleIncRoot ??= new X509Certificate(APPLE_INC_ROOT_PEM));

export const APP_STORE_ENVIRONMENTS = ['Production', 'Sandbox'] as const;
export type AppStoreEnvironment = (typeof APP_STORE_ENVIRONMENTS)[number];
export const isAppStoreEnvironment = (value: unknown): value is AppStoreEnvironment =>
  (APP_STORE_ENVIRONMENTS as readonly unknown[]).includes(value);

export interface AppStoreSettings {
  bundleId: string;
  environment: AppStoreEnvironment;
  /** Required by Apple for Production. */
  appAppleId?: number | undefined;
  /** App Store Server API key: needed only for legacy app receipts. */
  serverApi?: ServerApiCredentials | undefined;
}

/**
 * The JWSTransaction fields we read, typed as Apple documents them (a field of another type makes
 * Apple's library refuse the transaction, and so does this); other fields pass through.
 */
export const appStoreTransactionPayload = /* @__PURE__ */ define(() =>
  z.looseObject({
    transactionId: z.optional(z.string()),
    originalTransactionId: z.optional(z.string()),
    bundleId: z.optional(z.string()),
    productId: z.optional(z.string()),
    environment: z.optional(z.string()),
    purchaseDate: z.optional(z.number()),
    expiresDate: z.optional(z.number()),
    revocationDate: z.optional(z.number()),
    offerType: z.optional(z.number()),
    offerDiscountType: z.optional(z.string()),
    price: z.optional(z.number()),
    currency: z.optional(z.string()),
    signedDate: z.optional(z.number()),
    appAccountToken: z.optional(z.string()),
    inAppOwnershipType: z.optional(z.string()),
  }),
);
export type AppStoreTransactionPayload = z.infer<typeof appStoreTransactionPayload>;

/** Introductory offers of type 1 are free trials (Apple's offerType / offerDiscountType FREE_TRIAL). */
const isFreeTrial = (payload: AppStoreTransactionPayload) =>
  payload.offerDiscountType === 'FREE_TRIAL' || (payload.offerType === 1 && payload.offerDiscountType === undefined);

/**
 * Whether an app configured for `configured` takes data signed for `stated`: an app in Production
 * takes Sandbox too, as Apple documents (App Review buys with sandbox accounts against the
 * production build); an app in Sandbox takes Sandbox only. The environment is kept with the
 * purchase, so sandbox money never counts as revenue.
 */
export const acceptsEnvironment = (configured: AppStoreEnvironment, stated: unknown): stated is AppStoreEnvironment =>
  // Stryker disable next-line ConditionalExpression: configured is Production or Sandbox, and a Sandbox app's Sandbox is taken on the left
  stated === configured || (configured === 'Production' && stated === 'Sandbox');

/**
 * Apple's verification of one signed transaction (chain, signature), then whether it is for this
 * app (bundle id) and an environment it takes (acceptsEnvironment). Throws INVALID_RECEIPT, saying why.
 */
export function decodeAppStoreTransaction(
  jws: string,
  app: Pick<AppStoreSettings, 'bundleId' | 'environment'>,
  rootCertificates: readonly X509Certificate[],
): AppStoreTransactionPayload {
  try {
    const payload = verifyAppleSignedData(jws, rootCertificates, appStoreTransactionPayload);
    if (payload.bundleId !== app.bundleId) throw new AppleSignedDataError('app');
    if (!acceptsEnvironment(app.environment, payload.environment)) throw new AppleSignedDataError('environment');
    return payload;
  } catch (error) {
    if (!(error instanceof AppleSignedDataError)) throw error;
    throw invalidReceipt(`App Store transaction rejected: ${appleRejection(error.rejection)}`, {
      cause: error,
    });
  }
}

/**
 * A verified transaction of an auto-renewable subscription, normalised; throws `kind` when it
 * lacks its ids or purchase date, or is not a subscription (no expiresDate). Its environment is
 * the one it states, which its verification checked.
 */
export function transactionFromPayload(
  payload: AppStoreTransactionPayload,
  kind: 'INVALID_RECEIPT' | 'INVALID_NOTIFICATION' = 'INVALID_RECEIPT',
): VerifiedTransaction {
  if (!payload.transactionId || !payload.originalTransactionId || !payload.productId || !payload.purchaseDate) {
    throw new AppError(kind, 'App Store transaction lacks its ids or purchase date');
  }
  if (!payload.expiresDate) throw new AppError(kind, 'App Store transaction is not an auto-renewable subscription');
  return {
    store: 'app_store',
    platform: 'ios',
    environment: payload.environment as AppStoreEnvironment,
    transaction_id: payload.transactionId,
    original_transaction_id: payload.originalTransactionId,
    product_id: payload.productId,
    purchase_date: new Date(payload.purchaseDate).toISOString(),
    expires_at: new Date(payload.expiresDate).toISOString(),
    trial: isFreeTrial(payload),
    // Apple reports prices in milli-units of the storefront currency. A Family Sharing member pays
    // nothing: the purchaser's money is counted once, on the purchaser's own transaction.
    price:
      payload.inAppOwnershipType === 'FAMILY_SHARED'
        ? 0
        : typeof payload.price === 'number'
          ? payload.price / 1000
          : null,
    currency: payload.currency ?? null,
    revoked: payload.revocationDate !== undefined,
    app_account_token: payload.appAccountToken ?? null,
  };
}

/** Refuses, as INVALID_RECEIPT, what is not shaped as a signed app receipt (nothing is judged yet). */
export function requireAppReceiptShape(receiptData: string): void {
  try {
    readSignedReceipt(receiptData);
  } catch (error) {
    throw receiptRejected(error);
  }
}

/**
 * A legacy app receipt, once its signature chains to one of `receiptRoots` (Apple Inc. Root) and
 * it is this app's (bundle id). Throws INVALID_RECEIPT, saying why.
 */
export function decodeAppReceipt(
  receiptData: string,
  app: Pick<AppStoreSettings, 'bundleId'>,
  receiptRoots: readonly X509Certificate[],
): AppReceipt {
  let receipt: AppReceipt;
  try {
    receipt = verifyAppReceipt(receiptData, receiptRoots);
  } catch (error) {
    throw receiptRejected(error);
  }
  if (receipt.bundleId !== app.bundleId) throw invalidReceipt(`app receipt rejected: ${appleRejection('app')}`);
  if (receipt.purchases.length === 0) throw invalidReceipt('app receipt rejected: it lists no in-app purchase');
  return receipt;
}

function receiptRejected(error: unknown): unknown {
  if (!(error instanceof AppReceiptError)) return error;
  const rejections: Record<AppReceiptRejection, string> = {
    malformed: 'it is not a signed App Store receipt',
    signature: 'its signature does not verify',
    chain: "it is not signed by Apple's receipt-signing certificate chain",
    certificate: 'its certificates were not valid when it was created',
  };
  return invalidReceipt(`app receipt rejected: ${rejections[error.rejection]}`, { cause: error });
}

export function appStoreVerifier(
  settings: AppStoreSettings,
  rootCertificates: readonly X509Certificate[] = [APPLE_ROOT_CA_G3],
  /** Default: Apple Inc. Root. */
  receiptRootCertificates?: readonly X509Certificate[],
): StoreVerifier {
  const decode = async (jws: string) => decodeAppStoreTransaction(jws, settings, rootCertificates);

  return {
    async verify(receiptData: string): Promise<VerifiedTransaction> {
      let jws = jwsOf(receiptData);
      let payload: AppStoreTransactionPayload;
      if (jws) {
        payload = await decode(jws);
      } else {
        // A legacy app receipt: Apple's signature first, then the App Store Server API's signed
        // transactions for the purchase it lists.
        const receipt = decodeAppReceipt(receiptData, settings, receiptRootCertificates ?? [appleIncRootCertificate()]);
        if (!settings.serverApi) {
          throw new AppError(
            'VERIFICATION_FAILED',
            'legacy app receipts need App Store Server API credentials (stores apple set --issuer-id --key-id --key-file)',
            { retryable: true },
          );
        }
        jws = await fetchSignedTransactions(
          settings.serverApi,
          settings.bundleId,
          settings.environment,
          purchaseToAsk(receipt.purchases)!.transactionId,
          decode,
        );
        payload = await decode(jws);
        // Only a purchase the receipt lists (or a later renewal of it) can be claimed with it.
        if (!receipt.purchases.some((purchase) => purchase.originalTransactionId === payload.originalTransactionId)) {
          throw invalidReceipt("the App Store's transaction is not a purchase this receipt lists");
        }
      }
      return transactionFromPayload(payload);
    },
  };
}

/** Why a signed transaction was refused, in words. */
const appleRejection = (rejection: AppleRejection): string =>
  ({
    malformed: 'it is not a valid signed transaction',
    signature: 'the signature or certificate chain does not verify',
    chain: 'the signature or certificate chain does not verify',
    app: 'it belongs to another app (bundle id)',
    environment: 'it belongs to another environment',
    chain_length: "the certificate chain is not Apple's",
    certificate: "the certificate chain is not Apple's",
  })[rejection];
