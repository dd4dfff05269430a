/** Request schemas of the mobile reporting API; types are inferred from them. */
import * as z from 'zod';
import { productIdSchema, receiptDataSchema } from './common.js';

export const verifyFirstReceiptBody = z.object({ receipt: receiptDataSchema, productId: productIdSchema }).strict();
export const recoverReceiptBody = z.object({ receipt: receiptDataSchema }).strict();

/** The batch itself is checked event by event (codes and indexes) in lib/domain/events.ts. */
export const reportEventsBody = z.object({ events: z.unknown() }).strict();

const epoch = z.number().int('must be an integer').nonnegative();

export const reportSessionBody = z
  .object({
    sessionId: z.string().min(1, 'must not be empty').max(256),
    /** Epoch milliseconds (seconds are accepted too). */
    startTime: epoch,
    /** Seconds. */
    duration: epoch.max(7 * 86_400, 'must be at most a week (seconds)'),
  })
  .strict();
export type ReportSessionBody = z.infer<typeof reportSessionBody>;
