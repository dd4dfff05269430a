/**
 * What purchases-js reads of the catalogue's web products (lib/domain/revenuecat-web-products.ts):
 * apart from lib/services/revenuecat.ts, so that no other bundle carries the catalogue's reads.
 */
import { getProducts } from '../data/products.js';
import { soldOnWeb, type WebProduct, webProductOf } from '../domain/revenuecat-web-products.js';

/**
 * GET /rcbilling/v1/subscribers/{app_user_id}/products: the products of these ids sold on the web
 * (active, listing `web`), at their catalogue price; one not sold there is left out, as purchases-js
 * leaves out a package whose product it is not given.
 */
export async function revenuecatWebProducts(
  appId: string,
  productIds: readonly string[],
): Promise<{ product_details: WebProduct[] }> {
  const products = await getProducts(appId, productIds);
  return { product_details: products.filter(soldOnWeb).map(webProductOf) };
}
