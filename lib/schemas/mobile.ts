/** Request schemas of the mobile reporting API; types are inferred from them. */
import * as z from 'zod';
import { epochMillis, isReportedTime } from '../domain/events.js';
import { currencySchema, FORBIDDEN_KEYS, priceSchema, productIdSchema, receiptDataSchema, storableNumberSchema, unstorablePlace } from './common.js';

export const verifyFirstReceiptBody = z.object({ receipt: receiptDataSchema, productId: productIdSchema }).strict();
export const recoverReceiptBody = z.object({ receipt: receiptDataSchema }).strict();

/** The batch itself is checked event by event (codes and indexes) in lib/domain/events.ts. */
export const reportEventsBody = z.object({ events: z.unknown() }).strict();

const epoch = z.number().int('must be an integer').nonnegative();

export const reportSessionBody = z
  .object({
    sessionId: z.string().min(1, 'must not be empty').max(256),
    /** Epoch milliseconds (seconds are accepted too), between 2000 and now. */
    startTime: epoch.refine((t) => isReportedTime(epochMillis(t), new Date()), 'must be epoch milliseconds (or seconds) between 2000 and now'),
    /** Seconds. */
    duration: epoch.max(7 * 86_400, 'must be at most a week (seconds)'),
  })
  .strict();
export type ReportSessionBody = z.infer<typeof reportSessionBody>;

export const reportOrderBody = z
  .object({ orderId: z.string().min(1).max(256), productId: productIdSchema, price: priceSchema, currency: currencySchema })
  .strict();
export type ReportOrderBody = z.infer<typeof reportOrderBody>;

export const reportConversionBody = z
  .object({
    conversionType: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits or _ . : -'),
    value: storableNumberSchema,
  })
  .strict();
export type ReportConversionBody = z.infer<typeof reportConversionBody>;

export const REPORT_TYPE_PATTERN = /^[a-z0-9_]{1,64}$/;
export const reportTypeParams = z.object({ type: z.string().regex(REPORT_TYPE_PATTERN, 'must match ^[a-z0-9_]{1,64}$') });

export const MAX_REPORT_BYTES = 32 * 1024;

/** The body of /report/{type} and /report/global_switch: any JSON object up to 32 KB that the table can store as sent. */
export const freeFormReportBody = z
  .record(z.string(), z.unknown())
  .superRefine((body, ctx) => {
    if (Buffer.byteLength(JSON.stringify(body)) > MAX_REPORT_BYTES) ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_REPORT_BYTES} bytes (32 KB)` });
    const unstorable = unstorablePlace(body);
    if (unstorable) ctx.addIssue({ code: 'custom', path: unstorable.path, message: unstorable.message });
  });

export const CUSTOM_PROPERTY_LIMITS = { perRequest: 50, perUser: 100, valueLength: 512 } as const;
const customPropertyName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'property names are 1-64 letters, digits and _, not starting with a digit')
  .refine((key) => !FORBIDDEN_KEYS.has(key), 'is not an allowed property name');

export const customPropertiesBody = z
  .object({
    /** null deletes a property. */
    properties: z
      .record(customPropertyName, z.union([z.string().max(CUSTOM_PROPERTY_LIMITS.valueLength), storableNumberSchema, z.boolean(), z.null()]))
      .refine((props) => Object.keys(props).length >= 1, 'must set at least one property')
      .refine((props) => Object.keys(props).length <= CUSTOM_PROPERTY_LIMITS.perRequest, `at most ${CUSTOM_PROPERTY_LIMITS.perRequest} properties per request`),
  })
  .strict();
export type CustomPropertiesBody = z.infer<typeof customPropertiesBody>;

export const GENDERS = ['female', 'male', 'non_binary', 'other', 'undisclosed'] as const;

/** Standard user attributes; null clears one. */
export const userAttributesBody = z
  .object({
    email: z.email().max(254).nullable(),
    name: z.string().min(1).max(200).nullable(),
    first_name: z.string().min(1).max(100).nullable(),
    last_name: z.string().min(1).max(100).nullable(),
    phone: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be E.164, e.g. +14155550123').nullable(),
    language: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a BCP 47 tag, e.g. en or pt-BR').nullable(),
    country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code, e.g. US').nullable(),
    gender: z.enum(GENDERS).nullable(),
    birthday: z.iso.date('must be YYYY-MM-DD').nullable(),
    timezone: z.string().regex(/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/, 'must be an IANA zone, e.g. Europe/Paris').max(64).nullable(),
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'must set at least one attribute');
export type UserAttributesBody = z.infer<typeof userAttributesBody>;

export const attributionReportBody = z
  .object({
    network: z.string().regex(/^[A-Za-z0-9_. -]{1,64}$/, 'must be 1-64 letters, digits, space or _ . -'),
    data: freeFormReportBody,
  })
  .strict();
export type AttributionReportBody = z.infer<typeof attributionReportBody>;

/** Apple Search Ads attribution: `{attribution: {"Version3.1": {"iad-campaign-id": "...", ...}}}` (values are strings). */
export const searchAdsReportBody = z
  .object({
    attribution: z
      .record(z.string().regex(/^Version\d+(\.\d+)*$/, 'keys are versions such as Version3.1'), z.record(z.string(), z.string().max(1024)))
      .refine((versions) => Object.keys(versions).length === 1, 'must hold exactly one version key'),
  })
  .strict();
export type SearchAdsReportBody = z.infer<typeof searchAdsReportBody>;

export const adsInfoParams = z.object({
  platform: z
    .string()
    .transform((p) => p.toLowerCase())
    .pipe(z.enum(['ios', 'android'], 'must be ios or android')),
  app_id: z.string().min(1).max(64),
  /** The App Store id on iOS; Android has none (any placeholder, e.g. "-"). */
  store_id: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1-128 letters, digits or . _ -'),
});
