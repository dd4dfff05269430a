import { describe, expect, it } from 'vitest';
import type {
  DecidedSubscription,
  PurchaseClaim,
  StoredPurchase,
  StoreTransaction,
} from '../../lib/domain/purchase-decision.js';
import { decidePurchase, refusedAsAnotherUsers, screenTransaction } from '../../lib/domain/purchase-decision.js';

// app-1's account tokens (UUIDv5 of `app-1:<user>`), written out: inputs, not outcomes.
const ALICE_TOKEN = 'eb9d67a2-4797-5860-ba20-e05ea68e4fad';
const BOB_TOKEN = '815c1933-19a5-5e21-8d9e-dea93a8e45b7';

const TRANSACTION: StoreTransaction = {
  platform: 'ios',
  transaction_id: 'tx-2',
  original_transaction_id: 'tx-1',
  product_id: 'pro',
  expires_at: '2026-05-01T00:00:00.000Z',
  trial: false,
  price: 4.99,
  currency: 'EUR',
  revoked: false,
  app_account_token: null,
};

const CLAIM: PurchaseClaim = { appId: 'app-1', userId: 'alice', platform: 'ios', transfers: false };

const PRODUCT = { id: 'pro', price: 9.99, currency: 'USD', billing_period: 'monthly' } as const;

const NOTHING_STORED: StoredPurchase<DecidedSubscription> = {
  product: PRODUCT,
  owned: undefined,
  binding: undefined,
};

const sub = (
  id: string,
  user: string,
  status: DecidedSubscription['status'],
  expiresAt = '2026-04-01T00:00:00.000Z',
) => ({
  id,
  user_id: user,
  status,
  expires_at: expiresAt,
});

const own = (user: string, subscriptionId: string) => ({ user_id: user, subscription_id: subscriptionId });

const NEW_PURCHASE = {
  kind: 'insert',
  productId: 'pro',
  price: 4.99,
  currency: 'EUR',
  billingPeriod: 'monthly',
  revenue: 'new_purchase',
  takeOver: undefined,
};

const ALREADY_USED = { kind: 'reject', code: 'RECEIPT_ALREADY_USED', message: 'This purchase belongs to another user' };

interface Row {
  name: string;
  transaction?: Partial<StoreTransaction>;
  claim?: Partial<PurchaseClaim>;
  stored?: Partial<StoredPurchase<DecidedSubscription>>;
  expected: unknown;
}

const ROWS: Row[] = [
  // The transaction alone.
  {
    name: 'a transaction of another platform than the one claimed is INVALID_RECEIPT',
    claim: { platform: 'android' },
    expected: { kind: 'reject', code: 'INVALID_RECEIPT', message: 'the receipt was issued for ios, not android' },
  },
  {
    name: 'without a claimed platform (a store notification) the platform is not compared',
    claim: { platform: undefined },
    expected: NEW_PURCHASE,
  },
  {
    name: 'a revoked transaction is a refund, refused as INVALID_RECEIPT',
    transaction: { revoked: true },
    expected: { kind: 'refund', code: 'INVALID_RECEIPT', message: 'the store has revoked or refunded this purchase' },
  },
  {
    name: 'the platform is compared before the refund',
    transaction: { revoked: true },
    claim: { platform: 'android' },
    expected: { kind: 'reject', code: 'INVALID_RECEIPT', message: 'the receipt was issued for ios, not android' },
  },
  {
    name: 'a claimed transaction_id that is the transaction is accepted',
    claim: { transactionId: 'tx-2' },
    expected: NEW_PURCHASE,
  },
  {
    name: "a claimed transaction_id that is the purchase's original transaction is accepted",
    claim: { transactionId: 'tx-1' },
    expected: NEW_PURCHASE,
  },
  {
    name: 'a claimed transaction_id of another transaction is INVALID_RECEIPT',
    claim: { transactionId: 'tx-9' },
    expected: {
      kind: 'reject',
      code: 'INVALID_RECEIPT',
      message: 'transaction_id is not a transaction of this receipt',
    },
  },
  {
    name: 'the product the client expected is accepted',
    claim: { expectedProductId: 'pro' },
    expected: NEW_PURCHASE,
  },
  {
    name: 'another product than the one the client expected is INVALID_RECEIPT',
    claim: { expectedProductId: 'basic' },
    expected: { kind: 'reject', code: 'INVALID_RECEIPT', message: 'the receipt is for product pro, not basic' },
  },
  {
    name: "the requesting user's account token is accepted",
    transaction: { app_account_token: ALICE_TOKEN },
    expected: NEW_PURCHASE,
  },
  {
    name: "the requesting user's account token in upper case is accepted",
    transaction: { app_account_token: ALICE_TOKEN.toUpperCase() },
    expected: NEW_PURCHASE,
  },
  {
    name: "another user's account token is RECEIPT_ALREADY_USED, even on a restore under the transfer policy",
    transaction: { app_account_token: BOB_TOKEN },
    claim: { transfers: true },
    expected: {
      kind: 'reject',
      code: 'RECEIPT_ALREADY_USED',
      message: 'This purchase was made for another user (the app account token it carries)',
    },
  },
  // The catalogue.
  {
    name: 'a product not in the catalogue is INVALID_RECEIPT',
    stored: { product: undefined },
    expected: {
      kind: 'reject',
      code: 'INVALID_RECEIPT',
      message: "product pro of the receipt is not in this app's catalogue",
    },
  },
  // New purchases and their price.
  {
    name: 'a purchase nobody owns is inserted at the price the store charged',
    expected: NEW_PURCHASE,
  },
  {
    name: "a trial is inserted at the catalogue's price",
    transaction: { trial: true },
    expected: { ...NEW_PURCHASE, price: 9.99, currency: 'USD' },
  },
  {
    name: "a transaction without the store's price is inserted at the catalogue's price",
    transaction: { price: null, currency: null },
    expected: { ...NEW_PURCHASE, price: 9.99, currency: 'USD' },
  },
  // Ownership and the restore policy.
  {
    name: "another user's purchase is RECEIPT_ALREADY_USED",
    stored: { owned: own('bob', 's-bob') },
    expected: ALREADY_USED,
  },
  {
    name: "another user's purchase, on a restore under the transfer policy, is taken over without revenue",
    claim: { transfers: true },
    stored: { owned: own('bob', 's-bob') },
    expected: {
      ...NEW_PURCHASE,
      revenue: 'transferred',
      takeOver: { fromUserId: 'bob', fromSubscriptionId: 's-bob' },
    },
  },
  {
    name: "taken over, the transaction's binding to the previous owner's subscription moves with it",
    claim: { transfers: true },
    stored: { owned: own('bob', 's-bob'), binding: own('bob', 's-bob') },
    expected: {
      ...NEW_PURCHASE,
      revenue: 'transferred',
      takeOver: { fromUserId: 'bob', fromSubscriptionId: 's-bob' },
    },
  },
  {
    name: "taken over, a transaction paying for a third user's subscription is RECEIPT_ALREADY_USED (nothing is taken)",
    claim: { transfers: true },
    stored: { owned: own('bob', 's-bob'), binding: own('carol', 's-carol') },
    expected: ALREADY_USED,
  },
  {
    name: "taken over, a transaction paying for the requester's own subscription asks for it",
    claim: { transfers: true },
    stored: { owned: own('bob', 's-bob'), binding: own('alice', 's-alice') },
    expected: {
      kind: 'read_subscription',
      subscriptionId: 's-alice',
      takeOver: { fromUserId: 'bob', fromSubscriptionId: 's-bob' },
    },
  },
  {
    name: "taken over, the requester's own pending record of the transaction is activated",
    claim: { transfers: true },
    stored: {
      owned: own('bob', 's-bob'),
      binding: own('alice', 's-alice'),
      subscription: sub('s-alice', 'alice', 'pending_verification'),
    },
    expected: {
      kind: 'activate',
      subscription: sub('s-alice', 'alice', 'pending_verification'),
      expiresAt: '2026-05-01T00:00:00.000Z',
      bindOwner: true,
      takeOver: { fromUserId: 'bob', fromSubscriptionId: 's-bob' },
    },
  },
  // A transaction already bound (idempotent re-verification, pending records).
  {
    name: "a transaction paying for another user's subscription is RECEIPT_ALREADY_USED",
    stored: { binding: own('bob', 's-bob') },
    expected: ALREADY_USED,
  },
  {
    name: "a transaction paying for the requester's subscription asks for it",
    stored: { owned: own('alice', 's-alice'), binding: own('alice', 's-alice') },
    expected: { kind: 'read_subscription', subscriptionId: 's-alice', takeOver: undefined },
  },
  {
    name: 'a subscription read for another id than the one decided on is asked for again',
    stored: { binding: own('alice', 's-alice'), subscription: sub('s-other', 'alice', 'active') },
    expected: { kind: 'read_subscription', subscriptionId: 's-alice', takeOver: undefined },
  },
  {
    name: 'a transaction paying for an active subscription answers it: verifying again changes nothing',
    stored: {
      owned: own('alice', 's-alice'),
      binding: own('alice', 's-alice'),
      subscription: sub('s-alice', 'alice', 'active'),
    },
    expected: { kind: 'answer', subscription: sub('s-alice', 'alice', 'active'), takeOver: undefined },
  },
  {
    name: 'a transaction paying for an expired subscription answers it',
    stored: { binding: own('alice', 's-alice'), subscription: sub('s-alice', 'alice', 'expired') },
    expected: { kind: 'answer', subscription: sub('s-alice', 'alice', 'expired'), takeOver: undefined },
  },
  {
    name: 'a pending_verification record of the transaction (POST /subscriptions) is activated and becomes the owner',
    stored: { binding: own('alice', 's-alice'), subscription: sub('s-alice', 'alice', 'pending_verification') },
    expected: {
      kind: 'activate',
      subscription: sub('s-alice', 'alice', 'pending_verification'),
      expiresAt: '2026-05-01T00:00:00.000Z',
      bindOwner: true,
      takeOver: undefined,
    },
  },
  {
    name: "a pending record whose user is not the binding's is activated without becoming the owner",
    stored: { binding: own('alice', 's-alice'), subscription: sub('s-alice', 'zed', 'pending_verification') },
    expected: {
      kind: 'activate',
      subscription: sub('s-alice', 'zed', 'pending_verification'),
      expiresAt: '2026-05-01T00:00:00.000Z',
      bindOwner: false,
      takeOver: undefined,
    },
  },
  // A later transaction of the requester's purchase: renewal or resubscription.
  {
    name: "a new transaction of the requester's purchase asks for the subscription the purchase serves",
    stored: { owned: own('alice', 's-alice') },
    expected: { kind: 'read_subscription', subscriptionId: 's-alice', takeOver: undefined },
  },
  {
    name: 'a later transaction of an active subscription renews it to the transaction’s expiry',
    stored: { owned: own('alice', 's-alice'), subscription: sub('s-alice', 'alice', 'active') },
    expected: {
      kind: 'renew',
      subscription: sub('s-alice', 'alice', 'active'),
      expiresAt: '2026-05-01T00:00:00.000Z',
    },
  },
  {
    name: 'a transaction of an active subscription expiring no later than it does changes nothing',
    stored: {
      owned: own('alice', 's-alice'),
      subscription: sub('s-alice', 'alice', 'active', '2026-05-01T00:00:00.000Z'),
    },
    expected: { kind: 'answer', subscription: sub('s-alice', 'alice', 'active', '2026-05-01T00:00:00.000Z') },
  },
  {
    name: 'a later transaction of a paused subscription changes nothing',
    stored: { owned: own('alice', 's-alice'), subscription: sub('s-alice', 'alice', 'paused') },
    expected: { kind: 'answer', subscription: sub('s-alice', 'alice', 'paused') },
  },
  {
    name: 'a later transaction of a subscription still pending_verification changes nothing',
    stored: { owned: own('alice', 's-alice'), subscription: sub('s-alice', 'alice', 'pending_verification') },
    expected: { kind: 'answer', subscription: sub('s-alice', 'alice', 'pending_verification') },
  },
  {
    name: 'a later transaction of an expired subscription is a resubscription: a new subscription',
    stored: { owned: own('alice', 's-alice'), subscription: sub('s-alice', 'alice', 'expired') },
    expected: NEW_PURCHASE,
  },
  {
    name: 'a later transaction of a cancelled subscription is a resubscription: a new subscription',
    stored: { owned: own('alice', 's-alice'), subscription: sub('s-alice', 'alice', 'cancelled') },
    expected: NEW_PURCHASE,
  },
];

describe('decidePurchase: one row per rule', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const decision = decidePurchase(
        { ...TRANSACTION, ...row.transaction },
        { ...CLAIM, ...row.claim },
        { ...NOTHING_STORED, ...row.stored },
      );
      expect(decision).toEqual(row.expected);
    });
  }
});

describe('screenTransaction: the rows decided before anything is read', () => {
  it('lets through a transaction the requester may have bound', () => {
    expect(screenTransaction(TRANSACTION, CLAIM)).toBeUndefined();
  });

  it('refuses what decidePurchase refuses on the transaction alone', () => {
    expect(screenTransaction({ ...TRANSACTION, revoked: true }, CLAIM)).toEqual({
      kind: 'refund',
      code: 'INVALID_RECEIPT',
      message: 'the store has revoked or refunded this purchase',
    });
    expect(screenTransaction(TRANSACTION, { ...CLAIM, expectedProductId: 'basic' })).toEqual({
      kind: 'reject',
      code: 'INVALID_RECEIPT',
      message: 'the receipt is for product pro, not basic',
    });
  });
});

describe('refusedAsAnotherUsers: what restore eligibility answers false to', () => {
  it("is true of every row refusing the purchase as another user's, and of no other", () => {
    const decisions = ROWS.map((row) =>
      decidePurchase(
        { ...TRANSACTION, ...row.transaction },
        { ...CLAIM, ...row.claim },
        { ...NOTHING_STORED, ...row.stored },
      ),
    );
    const codes = decisions.map((decision) => (decision.kind === 'reject' ? decision.code : decision.kind));
    // The rows hold both kinds of refusal, so the check below can tell them apart.
    expect(codes).toEqual(expect.arrayContaining(['RECEIPT_ALREADY_USED', 'INVALID_RECEIPT']));
    expect(decisions.map(refusedAsAnotherUsers)).toEqual(codes.map((code) => code === 'RECEIPT_ALREADY_USED'));
  });
});
