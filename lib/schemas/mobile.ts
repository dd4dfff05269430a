/** Request schemas of the mobile reporting API; types are inferred from them. */

import * as z from 'zod/mini';
import { epochMillis, isReportedTime } from '../domain/events.js';
import {
  currencySchema,
  emailAddressSchema,
  FORBIDDEN_KEYS,
  priceSchema,
  productIdSchema,
  receiptToVerifySchema,
  storableNumberSchema,
  unstorablePlace,
} from './common.js';
import { define } from './define.js';

export const verifyFirstReceiptBody = /* @__PURE__ */ define(() =>
  z.strictObject({ receipt: receiptToVerifySchema, productId: productIdSchema }),
);
export const recoverReceiptBody = /* @__PURE__ */ define(() => z.strictObject({ receipt: receiptToVerifySchema }));

/** The batch itself is checked event by event (codes and indexes) in lib/domain/events.ts. */
export const reportEventsBody = /* @__PURE__ */ define(() => z.strictObject({ events: z.unknown() }));

const epoch = () => z.number().check(z.int('must be an integer'), z.nonnegative());

export const reportSessionBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    sessionId: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(256)),
    /** Epoch milliseconds (seconds are accepted too), between 2000 and now. */
    startTime: epoch().check(
      z.refine(
        (t) => isReportedTime(epochMillis(t), new Date()),
        'must be epoch milliseconds (or seconds) between 2000 and now',
      ),
    ),
    /** Seconds. */
    duration: epoch().check(z.lte(7 * 86_400, 'must be at most a week (seconds)')),
  }),
);
export type ReportSessionBody = z.infer<typeof reportSessionBody>;

export const reportOrderBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    orderId: z.string().check(z.minLength(1), z.maxLength(256)),
    productId: productIdSchema,
    price: priceSchema,
    currency: currencySchema,
  }),
);
export type ReportOrderBody = z.infer<typeof reportOrderBody>;

export const reportConversionBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    conversionType: z.string().check(z.regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits or _ . : -')),
    value: storableNumberSchema,
  }),
);
export type ReportConversionBody = z.infer<typeof reportConversionBody>;

export const REPORT_TYPE_PATTERN = /^[a-z0-9_]{1,64}$/;
export const reportTypeParams = /* @__PURE__ */ define(() =>
  z.object({ type: z.string().check(z.regex(REPORT_TYPE_PATTERN, 'must match ^[a-z0-9_]{1,64}$')) }),
);

export const MAX_REPORT_BYTES = 32 * 1024;

/** The body of /report/{type} and /report/global_switch: any JSON object up to 32 KB that the table can store as sent. */
export const freeFormReportBody = /* @__PURE__ */ define(() =>
  z.record(z.string(), z.unknown()).check(
    z.superRefine((body, ctx) => {
      if (Buffer.byteLength(JSON.stringify(body)) > MAX_REPORT_BYTES)
        ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_REPORT_BYTES} bytes (32 KB)` });
      const unstorable = unstorablePlace(body);
      if (unstorable) ctx.addIssue({ code: 'custom', path: unstorable.path, message: unstorable.message });
    }),
  ),
);

export const CUSTOM_PROPERTY_LIMITS = { perRequest: 50, perUser: 100, valueLength: 512 } as const;
const customPropertyName = /* @__PURE__ */ define(() =>
  z.string().check(
    z.regex(
      /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
      'property names are 1-64 letters, digits and _, not starting with a digit',
    ),
    z.refine((key) => !FORBIDDEN_KEYS.has(key), 'is not an allowed property name'),
  ),
);

export const customPropertiesBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    /** null deletes a property. */
    properties: z
      .record(
        customPropertyName,
        z.union([
          z.string().check(z.maxLength(CUSTOM_PROPERTY_LIMITS.valueLength)),
          storableNumberSchema,
          z.boolean(),
          z.null(),
        ]),
      )
      .check(
        z.refine((props) => Object.keys(props).length >= 1, 'must set at least one property'),
        z.refine(
          (props) => Object.keys(props).length <= CUSTOM_PROPERTY_LIMITS.perRequest,
          `at most ${CUSTOM_PROPERTY_LIMITS.perRequest} properties per request`,
        ),
      ),
  }),
);
export type CustomPropertiesBody = z.infer<typeof customPropertiesBody>;

export const GENDERS = ['female', 'male', 'non_binary', 'other', 'undisclosed'] as const;

/** A text attribute; null clears it. */
const attribute = (...checks: Parameters<ReturnType<typeof z.string>['check']>) =>
  z.nullable(z.string().check(...checks));

/** Standard user attributes; null clears one. */
/** The spec's standard user attributes: the keys of userAttributesBody (test/unit/dingyue-dialect.test.ts holds them equal). */
export const USER_ATTRIBUTE_NAMES = [
  'email',
  'name',
  'first_name',
  'last_name',
  'phone',
  'language',
  'country',
  'gender',
  'birthday',
  'timezone',
] as const;

export const userAttributesBody = /* @__PURE__ */ define(() =>
  z
    .partial(
      z.strictObject({
        email: z.nullable(emailAddressSchema),
        name: attribute(z.minLength(1), z.maxLength(200)),
        first_name: attribute(z.minLength(1), z.maxLength(100)),
        last_name: attribute(z.minLength(1), z.maxLength(100)),
        phone: attribute(z.regex(/^\+[1-9]\d{6,14}$/, 'must be E.164, e.g. +14155550123')),
        language: attribute(z.regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a BCP 47 tag, e.g. en or pt-BR')),
        country: attribute(z.regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code, e.g. US')),
        gender: z.nullable(z.enum(GENDERS)),
        birthday: z.nullable(z.iso.date('must be YYYY-MM-DD')),
        timezone: attribute(
          z.regex(/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/, 'must be an IANA zone, e.g. Europe/Paris'),
          z.maxLength(64),
        ),
      }),
    )
    .check(z.refine((body) => Object.keys(body).length > 0, 'must set at least one attribute')),
);
export type UserAttributesBody = z.infer<typeof userAttributesBody>;

export const attributionReportBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    network: z.string().check(z.regex(/^[A-Za-z0-9_. -]{1,64}$/, 'must be 1-64 letters, digits, space or _ . -')),
    data: freeFormReportBody,
  }),
);
export type AttributionReportBody = z.infer<typeof attributionReportBody>;

/** Apple Search Ads attribution: `{attribution: {"Version3.1": {"iad-campaign-id": "...", ...}}}` (values are strings). */
export const searchAdsReportBody = /* @__PURE__ */ define(() =>
  z.strictObject({
    attribution: z
      .record(
        z.string().check(z.regex(/^Version\d+(\.\d+)*$/, 'keys are versions such as Version3.1')),
        z.record(z.string(), z.string().check(z.maxLength(1024))),
      )
      .check(
        z.refine((versions) => Object.keys(versions).length === 1, 'must hold exactly one version key'),
        // Entry names are free-form: the same storability rule as other free-form bodies (no
        // empty or prototype keys, which the table cannot store as sent).
        z.superRefine((versions, ctx) => {
          const unstorable = unstorablePlace(versions);
          if (unstorable) ctx.addIssue({ code: 'custom', path: unstorable.path, message: unstorable.message });
        }),
      ),
  }),
);
export type SearchAdsReportBody = z.infer<typeof searchAdsReportBody>;

export const adsInfoParams = /* @__PURE__ */ define(() =>
  z.object({
    platform: z.pipe(
      z.pipe(
        z.string(),
        z.transform((p: string) => p.toLowerCase()),
      ),
      z.enum(['ios', 'android'], 'must be ios or android'),
    ),
    app_id: z.string().check(z.minLength(1), z.maxLength(64)),
    /** The App Store id on iOS; Android has none (any placeholder, e.g. "-"). */
    store_id: z.string().check(z.regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1-128 letters, digits or . _ -')),
  }),
);
