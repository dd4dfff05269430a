/** Test-store receipts for an app created with the test store on (what `admin receipts mint` does). */
import { getApp } from '../../lib/data/apps.js';
import type { Product } from '../../lib/schemas/product.js';
import { mintTestReceipt } from '../../lib/stores/test-store.js';
import type { TestApp } from './fixtures.js';

export interface MintOptions {
  /** A catalogue product (its price and currency go into the receipt), or a bare product id sold at 9.99 USD. */
  product?: Product | string;
  /** Seconds from now to expiry (default 30 days; negative mints an expired purchase). */
  expiresIn?: number;
  trial?: boolean;
  /** Mints a renewal of this earlier transaction. */
  renews?: string;
  /** Mints the store's revocation (refund) of this transaction. */
  revokes?: string;
  /** The purchase is made for this account (StoreKit's appAccountToken). */
  appAccountToken?: string;
  /** The platform the receipt is issued for (default ios). */
  platform?: 'ios' | 'android';
}

export async function mintReceipt(
  app: TestApp,
  options: MintOptions = {},
): Promise<{ receipt_data: string; transaction_id: string }> {
  const product = options.product ?? 'premium_monthly';
  const priced = typeof product === 'string' ? { id: product, price: 9.99, currency: 'USD' } : product;
  return mintTestReceipt({
    appId: app.appId,
    privateKeyPem: (await getApp(app.appId))!.test_store_private_key!,
    productId: priced.id,
    platform: options.platform ?? 'ios',
    price: priced.price,
    currency: priced.currency,
    expiresInSeconds: options.expiresIn ?? 30 * 86_400,
    trial: options.trial ?? false,
    originalTransactionId: options.renews,
    revokes: options.revokes ? { transactionId: options.revokes, originalTransactionId: options.revokes } : undefined,
    appAccountToken: options.appAccountToken,
  });
}
