/**
 * App Store: StoreKit 2 signed transactions (JWS), verified offline with Apple's App Store Server
 * Library against Apple Root CA G3 (embedded in lib/stores/apple-root-ca-g3.ts): the certificate chain, the
 * signature, the bundle id and the environment. Online checks (OCSP) are off, so the chain is
 * judged at the transaction's signedDate, as Apple's library does.
 */
import { Environment, SignedDataVerifier, VerificationException, VerificationStatus } from '@apple/app-store-server-library';
import { X509Certificate } from 'node:crypto';
import { AppError } from '../errors.js';
import { APPLE_ROOT_CA_G3_PEM } from './apple-root-ca-g3.js';
import { fetchSignedTransactions, transactionIdOfAppReceipt, type ServerApiCredentials } from './app-store-server-api.js';
import { jwsOf, type StoreVerifier, type VerifiedTransaction } from './types.js';

export const APPLE_ROOT_CA_G3 = new X509Certificate(APPLE_ROOT_CA_G3_PEM);

export const APP_STORE_ENVIRONMENTS = ['Production', 'Sandbox'] as const;
export type AppStoreEnvironment = (typeof APP_STORE_ENVIRONMENTS)[number];

export interface AppStoreSettings {
  bundleId: string;
  environment: AppStoreEnvironment;
  /** Required by Apple for Production. */
  appAppleId?: number | undefined;
  /** App Store Server API key: needed only for legacy app receipts. */
  serverApi?: ServerApiCredentials | undefined;
}

const ENVIRONMENT: Record<AppStoreEnvironment, Environment> = { Production: Environment.PRODUCTION, Sandbox: Environment.SANDBOX };

/** Introductory offers of type 1 are free trials (Apple's offerType / offerDiscountType FREE_TRIAL). */
const isFreeTrial = (payload: { offerType?: number; offerDiscountType?: string }) =>
  payload.offerDiscountType === 'FREE_TRIAL' || (payload.offerType === 1 && payload.offerDiscountType === undefined);

export function appStoreVerifier(settings: AppStoreSettings, rootCertificates: X509Certificate[] = [APPLE_ROOT_CA_G3]): StoreVerifier {
  const verifier = new SignedDataVerifier(
    rootCertificates.map((certificate) => certificate.raw),
    false,
    ENVIRONMENT[settings.environment],
    settings.bundleId,
    settings.appAppleId,
  );

  /** Apple's verification of one signed transaction: chain, signature, bundle id, environment. */
  async function decode(jws: string) {
    try {
      return await verifier.verifyAndDecodeTransaction(jws);
    } catch (error) {
      const status = error instanceof VerificationException ? error.status : VerificationStatus.FAILURE;
      if (status === VerificationStatus.RETRYABLE_VERIFICATION_FAILURE) {
        throw new AppError('VERIFICATION_FAILED', 'App Store verification could not complete; retry', { retryable: true, cause: error });
      }
      throw new AppError('INVALID_RECEIPT', `App Store transaction rejected: ${APPLE_REJECTIONS[status] ?? 'it is not a valid signed transaction'}`, { cause: error });
    }
  }

  return {
    async verify(receiptData: string): Promise<VerifiedTransaction> {
      let jws = jwsOf(receiptData);
      if (!jws) {
        // A legacy app receipt: ask the App Store Server API for the signed transactions it names.
        const transactionId = transactionIdOfAppReceipt(receiptData);
        if (!settings.serverApi) {
          throw new AppError('VERIFICATION_FAILED', 'legacy app receipts need App Store Server API credentials (stores apple set --issuer-id --key-id --key-file)', { retryable: true });
        }
        jws = await fetchSignedTransactions(settings.serverApi, settings.bundleId, settings.environment, transactionId, decode);
      }
      const payload = await decode(jws);
      if (!payload.transactionId || !payload.originalTransactionId || !payload.productId || !payload.purchaseDate) {
        throw new AppError('INVALID_RECEIPT', 'App Store transaction lacks its ids or purchase date');
      }
      if (!payload.expiresDate) throw new AppError('INVALID_RECEIPT', 'App Store transaction is not an auto-renewable subscription');
      return {
        store: 'app_store',
        environment: String(payload.environment),
        transaction_id: payload.transactionId,
        original_transaction_id: payload.originalTransactionId,
        product_id: payload.productId,
        purchase_date: new Date(payload.purchaseDate).toISOString(),
        expires_at: new Date(payload.expiresDate).toISOString(),
        trial: isFreeTrial(payload as { offerType?: number; offerDiscountType?: string }),
        // Apple reports prices in milli-units of the storefront currency.
        price: typeof payload.price === 'number' ? payload.price / 1000 : null,
        currency: payload.currency ?? null,
        revoked: payload.revocationDate !== undefined,
      };
    },
  };
}

/** Why the App Store Server Library refused a transaction, in words. */
const APPLE_REJECTIONS: Partial<Record<VerificationStatus, string>> = {
  [VerificationStatus.VERIFICATION_FAILURE]: 'the signature or certificate chain does not verify',
  [VerificationStatus.INVALID_APP_IDENTIFIER]: 'it belongs to another app (bundle id or app Apple id)',
  [VerificationStatus.INVALID_ENVIRONMENT]: 'it belongs to another environment',
  [VerificationStatus.INVALID_CHAIN_LENGTH]: 'the certificate chain is not Apple\'s',
  [VerificationStatus.INVALID_CERTIFICATE]: 'the certificate chain is not Apple\'s',
};
