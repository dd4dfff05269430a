/**
 * One interface for every store: a receipt goes in, a verified, normalised transaction comes out
 * (or an AppError: INVALID_RECEIPT when the receipt is not genuine or not for this app,
 * VERIFICATION_FAILED, retryable, when the store could not be asked).
 */
export const STORE_NAMES = ['app_store', 'google_play', 'test_store'] as const;
export type StoreName = (typeof STORE_NAMES)[number];

/**
 * Where the purchase was made: real money (Production), a store's test accounts (Sandbox: App
 * Store sandbox, Google Play test purchases; kept out of revenue), or the test store (Test).
 */
export type StoreEnvironment = 'Production' | 'Sandbox' | 'Test';

export interface VerifiedTransaction {
  store: StoreName;
  /** The platform whose store issued it: a receipt is valid only for the platform it was bought on. */
  platform: 'ios' | 'android';
  environment: StoreEnvironment;
  transaction_id: string;
  /** Every renewal of one purchase shares it (Google: the purchase token's linked chain root). */
  original_transaction_id: string;
  /** The store's product id (our catalogue's id). */
  product_id: string;
  purchase_date: string;
  expires_at: string;
  /** The transaction is a free trial (an introductory offer at no cost). */
  trial: boolean;
  /** Price paid in major units, when the store says it; null otherwise. */
  price: number | null;
  currency: string | null;
  /** Refunded or revoked by the store. */
  revoked: boolean;
  /**
   * The account the app named at purchase (StoreKit appAccountToken, Google Play
   * obfuscatedExternalAccountId); null when it named none. See lib/domain/app-account-token.ts.
   */
  app_account_token: string | null;
}

/**
 * What the store says about a purchase's renewal, beyond its latest transaction: notifications and
 * the stores' status APIs carry it, a receipt does not.
 */
export interface StoreRenewalState {
  /** The store will charge the next period at expires_at (Apple autoRenewStatus, Google autoRenewEnabled). */
  auto_renew: boolean;
  /** The product the next period is for, when the subscriber changed plan; null: the same product. */
  renewal_product_id: string | null;
  /** The store failed to charge the renewal and is retrying (Apple billing retry, Google on hold / grace). */
  billing_issue: boolean;
  /** While the store retries, access continues until then (the grace period); null: no grace period. */
  grace_period_expires_at: string | null;
}

/**
 * The store's truth about one purchase at one moment: its latest transaction, and (from a
 * notification or a status query) its renewal. Verification, notifications and the sweeper all
 * bring one of these to the same function (lib/services/store-truth.ts).
 */
export interface StorePurchaseState extends VerifiedTransaction {
  renewal: StoreRenewalState | null;
  /**
   * The purchase this one replaces, when the store made a new one for a plan change or a
   * resubscription (Google's linkedPurchaseToken): its owner owns this one too.
   */
  linked_original_transaction_id?: string | null | undefined;
  /**
   * The store's own time of what it says (Apple signedDate, Google eventTimeMillis or the time it
   * was read): a state older than the one applied already never moves a subscription back.
   */
  as_of: string;
  /**
   * The store reversed a refund it had granted (Apple's REFUND_REVERSED): the one word that gives a
   * refunded purchase its access back. Set only by that notification, never inferred from a state.
   */
  refund_reversed?: boolean | undefined;
  /**
   * The transaction a refund names when it is not the state's own (Google's voided order: the state
   * is the purchase as Google tells it now). Apple's refund is the state's transaction itself.
   */
  refunded_transaction_id?: string | undefined;
}

/** A store notification, verified: what it says happened, and the purchase's state it brings. */
export interface StoreNotification {
  store: StoreName;
  /** Every delivery of one notification carries it (Apple notificationUUID, Pub/Sub messageId). */
  notification_id: string;
  /** The store's own type and subtype, as sent (recorded; unknown future types included). */
  type: string;
  subtype: string | null;
  environment: StoreEnvironment;
  /** When the store signed or published it. */
  sent_at: string;
  /**
   * The purchase's state after what happened; null when the notification changes no purchase
   * (TEST, CONSUMPTION_REQUEST, a type this version does not know): it is recorded and answered 200.
   */
  state: StorePurchaseState | null;
}

export interface StoreVerifier {
  verify(receiptData: string): Promise<VerifiedTransaction>;
}

/**
 * Largest store notification taken, as JSON text (Apple's are a few KB, Pub/Sub pushes smaller):
 * the route refuses a larger body unread, and each store's decoder checks what it is given too.
 */
export const MAX_NOTIFICATION_BYTES = 65_536;

/** A JWS compact serialisation: three base64url parts. */
export const JWS_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Receipts may arrive raw or base64-encoded (as the spec's `receipt_data` says): returns the JWS if it is one. */
export function jwsOf(receiptData: string): string | undefined {
  const trimmed = receiptData.trim();
  if (JWS_PATTERN.test(trimmed)) return trimmed;
  const decoded = Buffer.from(trimmed, 'base64').toString('utf8').trim();
  return JWS_PATTERN.test(decoded) ? decoded : undefined;
}

/** The JOSE header of a receipt that is a JWS, unverified; undefined when it is none. */
export function jwsHeaderOf(receiptData: string): Record<string, unknown> | undefined {
  const header = jwsOf(receiptData)?.split('.')[0];
  if (header === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } /* Stryker disable next-line BlockStatement: without the return, the function ends and returns undefined alike */ catch {
    return undefined;
  }
}

/** Whether a receipt is a JWS whose header is a JOSE header (a signed transaction), whatever signed it. */
export const isSignedTransaction = (receiptData: string): boolean => typeof jwsHeaderOf(receiptData)?.alg === 'string';

/** The ids a signed transaction states, before its signature is checked. */
export interface StatedTransaction {
  transaction_id: string;
  original_transaction_id: string;
  product_id: string;
}

/**
 * What a JWS transaction (StoreKit 2's, or the test store's, which has the same fields) says
 * about itself, unverified: only for choosing what to read while its signature is checked, never
 * for deciding anything. Undefined when the receipt is not such a JWS.
 */
export function statedTransaction(receiptData: string): StatedTransaction | undefined {
  const payload = jwsOf(receiptData)?.split('.')[1];
  let stated: { transactionId?: unknown; originalTransactionId?: unknown; productId?: unknown } | null;
  try {
    // Stryker disable next-line StringLiteral: any text in place of the missing part is no JSON object of ids either
    stated = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { transactionId, originalTransactionId, productId } = stated ?? {};
  return isStatedId(transactionId) && isStatedId(originalTransactionId) && isStatedId(productId)
    ? { transaction_id: transactionId, original_transaction_id: originalTransactionId, product_id: productId }
    : undefined;
}

/**
 * An id worth reading by: the bytes are anyone's until the signature is checked, and a table key
 * longer than DynamoDB allows would fail the read (store ids are far shorter).
 */
const MAX_STATED_ID_BYTES = 256;
const isStatedId = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && Buffer.byteLength(value) <= MAX_STATED_ID_BYTES;
