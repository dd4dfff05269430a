/**
 * The test store: how SDK developers (and our own tests) buy things without Apple or Google.
 * Apps with the test store on (apps create --test-store, apps update --test-store on) get an
 * ES256 key pair; `admin receipts mint` signs a JWS shaped like a StoreKit JWSTransaction with
 * the app's private key, and only that app's public key verifies it, so no other app accepts it.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { jwsHeaderOf, jwsOf, type StoreVerifier, type VerifiedTransaction } from './types.js';

export interface TestStoreKeys {
  /** PKCS#8 PEM; stays in the table, never returned by any API. */
  privateKeyPem: string;
  publicKeyPem: string;
}

export function newTestStoreKeys(): TestStoreKeys {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

const TEST_ENVIRONMENT = 'Test';
const keyIdOf = (appId: string) => `test-store:${appId}`;
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The JWSTransaction fields the test store writes (a subset of StoreKit's, same names). */
interface TestTransactionPayload {
  transactionId: string;
  originalTransactionId: string;
  bundleId: string;
  productId: string;
  purchaseDate: number;
  originalPurchaseDate: number;
  expiresDate: number;
  type: 'Auto-Renewable Subscription';
  offerType?: 1;
  offerDiscountType?: 'FREE_TRIAL';
  /** Milli-units, as Apple reports prices. */
  price: number;
  currency: string;
  environment: typeof TEST_ENVIRONMENT;
  storefront: 'ios' | 'android';
  signedDate: number;
  /** Set when the store refunded (revoked) the transaction. */
  revocationDate?: number;
  /** The buyer's account, as an app sets it at purchase (StoreKit's appAccountToken). */
  appAccountToken?: string;
}

export interface MintRequest {
  appId: string;
  privateKeyPem: string;
  productId: string;
  platform: 'ios' | 'android';
  price: number;
  currency: string;
  expiresInSeconds: number;
  trial: boolean;
  /** Renewals of an earlier purchase carry its original transaction id. */
  originalTransactionId?: string | undefined;
  /** The store's refund of an earlier transaction: the same ids, with a revocation date. */
  revokes?: { transactionId: string; originalTransactionId: string } | undefined;
  /** The account the purchase is made for (lib/domain/app-account-token.ts). */
  appAccountToken?: string | undefined;
  now?: Date;
}

export function mintTestReceipt(request: MintRequest): { receipt_data: string; transaction_id: string } {
  const now = request.now ?? new Date();
  const transactionId = request.revokes?.transactionId ?? `test_${randomBytes(10).toString('hex')}`;
  const payload: TestTransactionPayload = {
    transactionId,
    originalTransactionId: request.revokes?.originalTransactionId ?? request.originalTransactionId ?? transactionId,
    bundleId: request.appId,
    productId: request.productId,
    purchaseDate: now.getTime(),
    originalPurchaseDate: now.getTime(),
    expiresDate: now.getTime() + request.expiresInSeconds * 1000,
    type: 'Auto-Renewable Subscription',
    ...(request.trial ? { offerType: 1 as const, offerDiscountType: 'FREE_TRIAL' as const } : {}),
    price: request.trial ? 0 : Math.round(request.price * 1000),
    currency: request.currency,
    environment: TEST_ENVIRONMENT,
    storefront: request.platform,
    signedDate: now.getTime(),
    ...(request.revokes ? { revocationDate: now.getTime() } : {}),
    ...(request.appAccountToken !== undefined ? { appAccountToken: request.appAccountToken } : {}),
  };
  const signingInput = `${b64url({ alg: 'ES256', typ: 'JWT', kid: keyIdOf(request.appId) })}.${b64url(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput), {
    key: createPrivateKey(request.privateKeyPem),
    dsaEncoding: 'ieee-p1363',
  });
  const jws = `${signingInput}.${signature.toString('base64url')}`;
  return { receipt_data: Buffer.from(jws).toString('base64'), transaction_id: transactionId };
}

function parseJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** True when the receipt claims to come from the test store (whichever app minted it). */
export function isTestStoreReceipt(receiptData: string): boolean {
  const kid = jwsHeaderOf(receiptData)?.kid;
  return typeof kid === 'string' && kid.startsWith('test-store:');
}

export function testStoreVerifier(appId: string, publicKeyPem: string): StoreVerifier {
  const publicKey = createPublicKey(publicKeyPem);
  return {
    async verify(receiptData: string): Promise<VerifiedTransaction> {
      const jws = jwsOf(receiptData);
      if (!jws) throw new AppError('INVALID_RECEIPT', 'receipt_data is not a test-store receipt');
      const [headerPart, payloadPart, signaturePart] = jws.split('.') as [string, string, string];
      const header = parseJson(headerPart);
      if (header?.alg !== 'ES256' || header.kid !== keyIdOf(appId)) {
        throw new AppError('INVALID_RECEIPT', 'test-store receipt was minted for another app');
      }
      const genuine = verify(
        'sha256',
        Buffer.from(`${headerPart}.${payloadPart}`),
        { key: publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signaturePart, 'base64url'),
      );
      const payload = genuine ? (parseJson(payloadPart) as Partial<TestTransactionPayload> | undefined) : undefined;
      if (!payload) throw new AppError('INVALID_RECEIPT', 'test-store receipt signature does not verify');
      if (payload.bundleId !== appId || payload.environment !== TEST_ENVIRONMENT)
        throw new AppError('INVALID_RECEIPT', 'test-store receipt belongs to another app');
      const { transactionId, originalTransactionId, productId, purchaseDate, expiresDate, storefront } = payload;
      if (storefront !== 'ios' && storefront !== 'android')
        throw new AppError('INVALID_RECEIPT', 'test-store receipt names no platform');
      if (
        !transactionId ||
        !originalTransactionId ||
        !productId ||
        !Number.isFinite(purchaseDate) ||
        !Number.isFinite(expiresDate)
      ) {
        throw new AppError('INVALID_RECEIPT', 'test-store receipt lacks its ids or dates');
      }
      return {
        store: 'test_store',
        platform: storefront,
        environment: TEST_ENVIRONMENT,
        transaction_id: transactionId,
        original_transaction_id: originalTransactionId,
        product_id: productId,
        purchase_date: new Date(purchaseDate!).toISOString(),
        expires_at: new Date(expiresDate!).toISOString(),
        trial: payload.offerDiscountType === 'FREE_TRIAL',
        price: typeof payload.price === 'number' ? payload.price / 1000 : null,
        currency: payload.currency ?? null,
        revoked: payload.revocationDate !== undefined,
        app_account_token: typeof payload.appAccountToken === 'string' ? payload.appAccountToken : null,
      };
    },
  };
}
