/** Field schemas shared by both APIs and the operator CLI. */
import * as z from 'zod/mini';
import { define } from './define.js';

export const PLATFORMS = ['ios', 'android', 'web'] as const;
export const platformSchema = /* @__PURE__ */ define(() => z.enum(PLATFORMS));
export type Platform = z.infer<typeof platformSchema>;

/** Ids that become part of table keys never contain '#', so key components cannot collide. */
export const productIdSchema = /* @__PURE__ */ define(() =>
  z.string().check(z.regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters of letters, digits, . _ : -')),
);

/** The most bytes of UTF-8 a user id takes: `<app>#<user>` is a sort key (1,024 bytes) of the customers index. */
export const USER_ID_MAX_BYTES = 1000;

export const userIdSchema = /* @__PURE__ */ define(() =>
  z.string().check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(256, 'must be at most 256 characters'),
    z.refine((id) => Buffer.byteLength(id) <= USER_ID_MAX_BYTES, `must be at most ${USER_ID_MAX_BYTES} bytes of UTF-8`),
  ),
);

export const subscriptionIdSchema = /* @__PURE__ */ define(() =>
  z.string().check(z.regex(/^sub_[0-9a-f]{24}$/, 'is not a subscription id')),
);
export const appIdSchema = /* @__PURE__ */ define(() =>
  z.string().check(z.regex(/^app_[0-9a-f]{16}$/, 'is not an app id')),
);

/** ISO 4217 alphabetic code; lower case is accepted and normalised to upper case. */
/** An email address as mail systems take it (at most 254 characters). */
export const emailAddressSchema = /* @__PURE__ */ define(() => z.email().check(z.maxLength(254)));

export const currencySchema = /* @__PURE__ */ define(() =>
  z.pipe(
    z.string().check(z.regex(/^[A-Za-z]{3}$/, 'must be a 3-letter ISO 4217 code')),
    z.transform((code: string) => code.toUpperCase()),
  ),
);

/**
 * Numbers the table can hold as they were sent: DynamoDB refuses magnitudes below 1e-130 (and
 * above 1e126), and the SDK refuses beyond ±(2^53 - 1) rather than store them imprecisely.
 */
export const isStorableNumber = (n: number): boolean =>
  Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= 1e-130);

// Built in a call marked pure (reading Number may have side effects to esbuild): bundles without its schemas drop it.
const STORABLE_NUMBER_RULE = /* @__PURE__ */ (() => `must be 0 or of magnitude 1e-130 to ${Number.MAX_SAFE_INTEGER}`)();

/** zod numbers are finite: Infinity and NaN fail as not numbers. */
export const priceSchema = /* @__PURE__ */ define(() =>
  z
    .number()
    .check(
      z.nonnegative(),
      z.lte(1_000_000, 'must be at most 1000000'),
      z.refine(isStorableNumber, STORABLE_NUMBER_RULE),
    ),
);

/** ISO 8601 with a time zone; normalised to UTC `...Z` with milliseconds. */
export const timestampSchema = /* @__PURE__ */ define(() =>
  z.pipe(
    z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp with a time zone' }),
    z.transform((value: string) => new Date(value).toISOString()),
  ),
);

/** Receipts are base64 (legacy App Store receipt, Google purchase object) or a JWS (StoreKit 2): these characters only. */
export const RECEIPT_CHARACTERS = /^[A-Za-z0-9+/=_.-]+$/;

/**
 * A receipt to verify: a non-empty string of bounded length. Whether it can be read as a receipt
 * (RECEIPT_CHARACTERS first) is verification's to say, as INVALID_RECEIPT.
 */
export const receiptToVerifySchema = /* @__PURE__ */ define(() =>
  z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(200_000, 'must be at most 200000 characters')),
);

/** A receipt stored with a record (create, update, renew), not verified there: its form is a parameter's. */
export const receiptDataSchema = /* @__PURE__ */ define(() =>
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(200_000, 'must be at most 200000 characters'),
      z.regex(RECEIPT_CHARACTERS, 'must be base64 or a JWS'),
    ),
);

export const transactionIdSchema = /* @__PURE__ */ define(() => z.string().check(z.minLength(1), z.maxLength(256)));

export const storableNumberSchema = /* @__PURE__ */ define(() =>
  z.number().check(z.refine(isStorableNumber, STORABLE_NUMBER_RULE)),
);

/**
 * Keys that change an object's prototype when assigned (`__proto__`), or would if merged naively:
 * never accepted as names. The SDK's marshalling assigns keys, so an own `__proto__` would become a
 * prototype and fail the write.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface UnstorablePlace {
  path: (string | number)[];
  message: string;
}

/**
 * The first place in free-form JSON (reports, event properties) that cannot be stored as sent: a
 * number out of range, an empty key (DynamoDB: "Empty attribute name") or a forbidden key, at any
 * depth. Recursion is safe: bodies nest at most MAX_JSON_DEPTH levels (lib/http/parse.ts).
 */
export function unstorablePlace(value: unknown, path: (string | number)[] = []): UnstorablePlace | undefined {
  if (typeof value === 'number') return isStorableNumber(value) ? undefined : { path, message: STORABLE_NUMBER_RULE };
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorablePlace(item, [...path, i]);
      if (found) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '') return { path, message: 'keys must not be empty' };
      if (FORBIDDEN_KEYS.has(key)) return { path: [...path, key], message: 'is not an allowed key' };
      const found = unstorablePlace(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/** A check of a list of things with ids: a repeated id is an issue at its place (`[index, "id"]`). */
export const uniqueIds = <T extends { id: string }>(what: string) =>
  z.superRefine((items: T[], ctx) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      if (seen.has(item.id))
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate ${what} id ${item.id}` });
      seen.add(item.id);
    });
  });
