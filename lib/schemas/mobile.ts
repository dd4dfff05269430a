/** Request schemas of the mobile reporting API; types are inferred from them. */
import * as z from 'zod';
import { productIdSchema, receiptDataSchema } from './common.js';

export const verifyFirstReceiptBody = z.object({ receipt: receiptDataSchema, productId: productIdSchema }).strict();
export const recoverReceiptBody = z.object({ receipt: receiptDataSchema }).strict();
