/** Field schemas shared by both APIs and the operator CLI. */
import * as z from 'zod';

export const PLATFORMS = ['ios', 'android', 'web'] as const;
export const platformSchema = z.enum(PLATFORMS);
export type Platform = z.infer<typeof platformSchema>;

/** Ids that become part of table keys never contain '#', so key components cannot collide. */
export const productIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters of letters, digits, . _ : -');

export const userIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(256, 'must be at most 256 characters');

export const subscriptionIdSchema = z.string().regex(/^sub_[0-9a-f]{24}$/, 'is not a subscription id');
export const appIdSchema = z.string().regex(/^app_[0-9a-f]{16}$/, 'is not an app id');

/** ISO 4217 alphabetic code; lower case is accepted and normalised to upper case. */
export const currencySchema = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter ISO 4217 code')
  .transform((code) => code.toUpperCase());

export const priceSchema = z
  .number()
  .finite()
  .nonnegative()
  .max(1_000_000, 'must be at most 1000000');

/** ISO 8601 with a time zone; normalised to UTC `...Z` with milliseconds. */
export const timestampSchema = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 timestamp with a time zone' })
  .transform((value) => new Date(value).toISOString());

/** Receipts are base64 (legacy App Store receipt, Google purchase object) or a JWS (StoreKit 2). */
export const receiptDataSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(200_000, 'must be at most 200000 characters')
  .regex(/^[A-Za-z0-9+/=_.-]+$/, 'must be base64 or a JWS');

export const transactionIdSchema = z.string().min(1).max(256);
