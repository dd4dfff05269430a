/**
 * The test store: how SDK developers (and our own tests) buy things without Apple or Google.
 * Apps with the test store on (apps create --test-store, apps update --test-store on) get an
 * ES256 key pair; `admin receipts mint` signs a JWS shaped like a StoreKit JWSTransaction with
 * the app's private key, and only that app's public key verifies it, so no other app accepts it.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { AppError, type ErrorKind, invalidReceipt } from '../core/errors.js';
import { base64urlJson, parseBase64urlJson } from '../core/json.js';
import type { StoreVerifier, VerifiedTransaction } from '../domain/store-purchase.js';
import { jwsHeaderOf, jwsOf } from './signed-receipt.js';

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

/** A transaction of the test store, as it is signed (receipts, and the transactions notifications carry). */
export interface TestTransaction {
  transactionId: string;
  originalTransactionId: string;
  productId: string;
  platform: 'ios' | 'android';
  purchaseDate: Date;
  expiresDate: Date;
  /** Major units; a trial is signed at 0. */
  price: number;
  currency: string;
  trial: boolean;
  revocationDate?: Date | undefined;
  appAccountToken?: string | undefined;
}

/** Signs a payload as this app's test store: ES256 with the app's key, key id `test-store:<app>`. */
export function signTestStoreJws(appId: string, privateKeyPem: string, payload: unknown): string {
  const header = {
    alg: 'ES256',
    // Stryker disable next-line StringLiteral: typ is informational in JOSE (RFC 7515, 4.1.9); no verifier reads it
    typ: 'JWT',
    kid: keyIdOf(appId),
  };
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput), {
    key: createPrivateKey(privateKeyPem),
    dsaEncoding: 'ieee-p1363',
  });
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** A test-store transaction as a JWS (what a receipt is, base64-encoded). */
export function signTestTransaction(
  appId: string,
  privateKeyPem: string,
  transaction: TestTransaction,
  now: Date,
): string {
  const payload: TestTransactionPayload = {
    transactionId: transaction.transactionId,
    originalTransactionId: transaction.originalTransactionId,
    bundleId: appId,
    productId: transaction.productId,
    purchaseDate: transaction.purchaseDate.getTime(),
    originalPurchaseDate: transaction.purchaseDate.getTime(),
    expiresDate: transaction.expiresDate.getTime(),
    type: 'Auto-Renewable Subscription',
    ...(transaction.trial ? { offerType: 1 as const, offerDiscountType: 'FREE_TRIAL' as const } : {}),
    price: transaction.trial ? 0 : Math.round(transaction.price * 1000),
    currency: transaction.currency,
    environment: TEST_ENVIRONMENT,
    storefront: transaction.platform,
    signedDate: now.getTime(),
    ...(transaction.revocationDate ? { revocationDate: transaction.revocationDate.getTime() } : {}),
    // Stryker disable next-line ConditionalExpression: an undefined field is left out of the JSON alike
    ...(transaction.appAccountToken !== undefined ? { appAccountToken: transaction.appAccountToken } : {}),
  };
  return signTestStoreJws(appId, privateKeyPem, payload);
}

/** A new transaction id of the test store. */
export const newTestTransactionId = () => `test_${randomBytes(10).toString('hex')}`;

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
  const transactionId = request.revokes?.transactionId ?? newTestTransactionId();
  const jws = signTestTransaction(
    request.appId,
    request.privateKeyPem,
    {
      transactionId,
      originalTransactionId: request.revokes?.originalTransactionId ?? request.originalTransactionId ?? transactionId,
      productId: request.productId,
      platform: request.platform,
      purchaseDate: now,
      expiresDate: new Date(now.getTime() + request.expiresInSeconds * 1000),
      price: request.price,
      currency: request.currency,
      trial: request.trial,
      revocationDate: request.revokes ? now : undefined,
      appAccountToken: request.appAccountToken,
    },
    now,
  );
  return { receipt_data: Buffer.from(jws).toString('base64'), transaction_id: transactionId };
}

function parseJson(part: string): Record<string, unknown> | undefined {
  try {
    const value = parseBase64urlJson(part);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } /* Stryker disable next-line BlockStatement: without the return, the function ends and returns undefined alike */ catch {
    return undefined;
  }
}

/** True when the receipt claims to come from the test store (whichever app minted it). */
export function isTestStoreReceipt(receiptData: string): boolean {
  const kid = jwsHeaderOf(receiptData)?.kid;
  return typeof kid === 'string' && kid.startsWith('test-store:');
}

/** How a refusal reads: its error kind, and the name of the JWS refused in its message. */
export interface TestStoreRefusal {
  kind: ErrorKind;
  what: string;
}

/**
 * The one check of a test-store JWS (receipts, notifications and what they carry): ES256, this
 * app's key id, this app's signature. Its payload when genuine; otherwise an AppError of the
 * refusal's kind.
 */
export function verifiedTestStorePayload(
  jws: string,
  appId: string,
  publicKey: KeyObject,
  refusal: TestStoreRefusal,
): Record<string, unknown> {
  const [headerPart, payloadPart, signaturePart] = jws.split('.') as [string, string, string];
  const header = parseJson(headerPart);
  if (header?.alg !== 'ES256' || header.kid !== keyIdOf(appId)) {
    throw new AppError(refusal.kind, `${refusal.what} was minted for another app`);
  }
  const genuine = verify(
    'sha256',
    Buffer.from(`${headerPart}.${payloadPart}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signaturePart, 'base64url'),
  );
  const payload = genuine ? parseJson(payloadPart) : undefined;
  if (!payload) throw new AppError(refusal.kind, `${refusal.what} signature does not verify`);
  return payload;
}

/** A verified test-store transaction JWS, read like a StoreKit transaction. */
export function verifyTestTransaction(
  jws: string,
  appId: string,
  publicKey: KeyObject,
  refusal: TestStoreRefusal,
): VerifiedTransaction {
  const payload: Partial<TestTransactionPayload> = verifiedTestStorePayload(jws, appId, publicKey, refusal);
  if (payload.bundleId !== appId || payload.environment !== TEST_ENVIRONMENT)
    throw new AppError(refusal.kind, `${refusal.what} belongs to another app`);
  const { transactionId, originalTransactionId, productId, purchaseDate, expiresDate, storefront } = payload;
  if (storefront !== 'ios' && storefront !== 'android')
    throw new AppError(refusal.kind, `${refusal.what} names no platform`);
  if (
    typeof transactionId !== 'string' ||
    typeof originalTransactionId !== 'string' ||
    typeof productId !== 'string' ||
    !transactionId ||
    !originalTransactionId ||
    !productId ||
    !Number.isFinite(purchaseDate) ||
    !Number.isFinite(expiresDate)
  ) {
    throw new AppError(refusal.kind, `${refusal.what} lacks its ids or dates`);
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
}

export function testStoreVerifier(appId: string, publicKeyPem: string): StoreVerifier {
  const publicKey = createPublicKey(publicKeyPem);
  return {
    async verify(receiptData: string): Promise<VerifiedTransaction> {
      const jws = jwsOf(receiptData);
      if (!jws) throw invalidReceipt('receipt_data is not a test-store receipt');
      return verifyTestTransaction(jws, appId, publicKey, { kind: 'INVALID_RECEIPT', what: 'test-store receipt' });
    },
  };
}
