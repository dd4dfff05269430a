/**
 * One interface for every store: a receipt goes in, a verified, normalised transaction comes out
 * (or an AppError: INVALID_RECEIPT when the receipt is not genuine or not for this app,
 * VERIFICATION_FAILED, retryable, when the store could not be asked).
 */
export const STORE_NAMES = ['app_store', 'google_play', 'test_store'] as const;

/** A JWS compact serialisation, three base64url parts: how the App Store and the test store sign what they send. */
export const JWS_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
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
