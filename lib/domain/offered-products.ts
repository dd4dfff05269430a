/**
 * What a paywall shows of each product an app's offerings name (pure): the catalogue's name,
 * price and period, copied into the offerings item when either is put (lib/data/offerings.ts), so
 * a launch reads no product.
 */
import type { OfferingsDocument } from '../schemas/offering.js';
import type { OfferedProduct, Product } from '../schemas/product.js';

/** The catalogue's entries for the products the document's packages name. */
export function offeredProductsOf(document: OfferingsDocument, catalogue: Product[]): Record<string, OfferedProduct> {
  const named = new Set(
    document.offerings.flatMap((offering) => offering.packages.flatMap((entry) => Object.values(entry.products))),
  );
  return Object.fromEntries(
    catalogue
      .filter((product) => named.has(product.id))
      .map(({ id, name, description, price, currency, billing_period }) => [
        id,
        { name, description, price, currency, billing_period },
      ]),
  );
}
