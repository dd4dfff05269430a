/** The product catalogue of an app. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Product } from '../schemas/product.js';
import { batchGetAll, batchWriteAll, putRequest } from './batch.js';
import { ddb, tableName } from './client.js';
import * as keys from './entity-keys.js';
import { queryPrefix } from './query.js';

const PRODUCT_FIELDS = [
  'id',
  'name',
  'description',
  'price',
  'currency',
  'billing_period',
  'trial_period_days',
  'features',
  'platforms',
  'active',
] as const satisfies readonly (keyof Product)[];

export function toProduct(item: Record<string, unknown>): Product {
  return Object.fromEntries(PRODUCT_FIELDS.map((field) => [field, item[field]])) as Product;
}

/** Creates or replaces these products (others in the catalogue are left as they are). */
export async function putProducts(appId: string, products: Product[]): Promise<void> {
  const now = new Date().toISOString();
  await batchWriteAll(
    products.map((product) =>
      putRequest({ ...keys.product(appId, product.id), type: 'product', app_id: appId, ...product, updated_at: now }),
    ),
  );
}

export async function listProducts(appId: string): Promise<Product[]> {
  const { pk, skPrefix } = keys.productPrefix(appId);
  return (await queryPrefix(pk, skPrefix)).map(toProduct);
}

export async function getProduct(appId: string, productId: string): Promise<Product | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName, Key: keys.product(appId, productId) }));
  return Item ? toProduct(Item) : undefined;
}

/** The catalogue's products of these ids (each once), in the order asked; an id not in the catalogue is left out. */
export async function getProducts(appId: string, productIds: readonly string[]): Promise<Product[]> {
  const ids = [...new Set(productIds)];
  const items = await batchGetAll(ids.map((id) => keys.product(appId, id)));
  return items.flatMap((item) => (item ? [toProduct(item)] : []));
}
