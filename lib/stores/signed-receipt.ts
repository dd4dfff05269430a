/** Receipts that are signed transactions (JWS): recognised and read before anyone checks their signature. */

import { isJsonObject, parseBase64urlJson } from '../core/json.js';
import { JWS_PATTERN } from '../domain/store-purchase.js';

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
    const parsed = parseBase64urlJson(header);
    return isJsonObject(parsed) ? parsed : undefined;
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
    stated = parseBase64urlJson(payload ?? '') as typeof stated;
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
