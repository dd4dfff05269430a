/**
 * What an app shows, as the operator set it: its offerings and placements (one item) and its
 * remote switches (one item), each replaced whole by a put, so a reader sees the old set or the new.
 * The offerings item also keeps what a paywall shows of each product its packages name (name,
 * price, period), copied from the catalogue when either is put, so a launch reads no product.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { offeredProductsOf } from '../domain/offered-products.js';
import type { OfferingsDocument, RemoteSwitch } from '../schemas/offering.js';
import type { Paywall } from '../schemas/paywall.js';
import type { OfferedProduct, Product } from '../schemas/product.js';
import type { Segment } from '../schemas/segment.js';
import { batchGetAll } from './batch.js';
import { ddb, isConditionFailure, tableName } from './client.js';
import * as keys from './entity-keys.js';

export async function putOfferings(
  appId: string,
  document: OfferingsDocument,
  catalogue: Product[],
  now = new Date(),
): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.offerings(appId),
        type: 'offerings',
        document,
        products: offeredProductsOf(document, catalogue),
        updated_at: now.toISOString(),
      },
    }),
  );
}

/**
 * After `products put`: the offerings' copy of the products, from the catalogue as it now is. An
 * offerings put in between wrote its own copy and is left as it is.
 */
export async function refreshOfferedProducts(appId: string, catalogue: Product[]): Promise<void> {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName, Key: keys.offerings(appId), ConsistentRead: true }),
  );
  if (!Item) return;
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.offerings(appId),
        UpdateExpression: 'SET products = :products',
        ConditionExpression: 'updated_at = :seen',
        ExpressionAttributeValues: {
          ':products': offeredProductsOf(Item.document as OfferingsDocument, catalogue),
          ':seen': Item.updated_at,
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export async function putRemoteSwitches(appId: string, switches: RemoteSwitch[], now = new Date()): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.remoteSwitches(appId), type: 'remote_switches', switches, updated_at: now.toISOString() },
    }),
  );
}

/** Everything that decides what an app's users are shown: its offerings, switches, bundles and rule segments. */
export interface ShownSettings {
  /** Undefined until the operator puts offerings. */
  offerings: OfferingsDocument | undefined;
  /** What paywalls show of the products the offerings sell, by product id. */
  products: Record<string, OfferedProduct>;
  paywalls: Paywall[];
  switches: RemoteSwitch[];
  segments: Segment[];
  /** When offerings and switches were last put, the later of the two; null when neither was. */
  updated_at: string | null;
}

/** The app's offerings, switches, bundles and rule segments, in one eventually consistent BatchGetItem. */
export async function readShownSettings(appId: string): Promise<ShownSettings> {
  const [offerings, switches, paywalls, segments] = await batchGetAll([
    keys.offerings(appId),
    keys.remoteSwitches(appId),
    keys.paywalls(appId),
    keys.segments(appId),
  ]);
  const updated = [offerings?.updated_at, switches?.updated_at].filter((at): at is string => typeof at === 'string');
  return {
    offerings: offerings?.document as OfferingsDocument | undefined,
    products: (offerings?.products as Record<string, OfferedProduct> | undefined) ?? {},
    paywalls: (paywalls?.paywalls as Paywall[] | undefined) ?? [],
    switches: (switches?.switches as RemoteSwitch[] | undefined) ?? [],
    segments: (segments?.segments as Segment[] | undefined) ?? [],
    updated_at: updated.sort().at(-1) ?? null,
  };
}
