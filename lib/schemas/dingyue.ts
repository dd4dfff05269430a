/**
 * Request bodies of the DingYue iOS SDK 0.3.16 (github.com/DingyueIO/DingYue_iOS_SDK, its
 * Classes/OpenAPIs/Models/*.swift), as its encoders write them: optional fields left out when nil,
 * keys in any order. Each is served by the spec endpoint it mirrors (docs/sdk-dingyue.md), whose
 * own rules then apply to what it carries.
 */
import * as z from 'zod/mini';
import { AppError } from '../core/errors.js';
import { productIdSchema, receiptToVerifySchema, unstorablePlace } from './common.js';
import { define } from './define.js';

const shortText = (max = 256) => z.string().check(z.maxLength(max));

/** JSON bytes of the device's free-form parts the profile keeps. */
export const MAX_DEVICE_BYTES = 16 * 1024;

/** UniqueUserObject.swift: the device, sent at every launch. */
export const dingyueDeviceBody = /* @__PURE__ */ define(() =>
  z
    .object({
      osVersion: shortText(64),
      appVersion: z.optional(shortText(64)),
      idfa: z.optional(shortText(64)),
      idfv: z.optional(shortText(64)),
      deviceToken: z.optional(shortText(512)),
      device: shortText(64),
      connection: z.optional(z.enum(['WIFI', 'MOBILE', 'FIXED', 'BLUETOOTH', 'UNKNOWN', 'NONE'])),
      area: z.optional(shortText(16)),
      language: z.optional(shortText(35)),
      deviceInfo: z.optional(z.record(z.string().check(z.maxLength(64)), z.unknown())),
      extraData: z.optional(z.record(z.string().check(z.maxLength(64)), shortText(1024))),
      attribution: z.optional(z.record(z.string(), z.unknown())),
    })
    .check(
      // Kept on the profile item: bounded, and storable as sent.
      z.superRefine((device, ctx) => {
        const kept = { deviceInfo: device.deviceInfo, extraData: device.extraData };
        if (Buffer.byteLength(JSON.stringify(kept)) > MAX_DEVICE_BYTES)
          ctx.addIssue({
            code: 'custom',
            message: `deviceInfo and extraData must be at most ${MAX_DEVICE_BYTES} bytes`,
          });
        const unstorable = unstorablePlace(kept);
        if (unstorable) ctx.addIssue({ code: 'custom', path: unstorable.path, message: unstorable.message });
      }),
    ),
);
export type DingYueDevice = z.infer<typeof dingyueDeviceBody>;

/**
 * FirstReceiptVerifyPostObject.swift. Its `price`, `currencyCode` and `countryCode` are what the
 * device displayed: the store's receipt says what was paid, so they are read past, not kept.
 */
export const dingyueFirstReceiptBody = /* @__PURE__ */ define(() =>
  z.object({
    appleReceipt: z.optional(receiptToVerifySchema),
    androidToken: z.optional(receiptToVerifySchema),
    platformProductId: productIdSchema,
  }),
);

/** ReceiptVerifyPostObject.swift. */
export const dingyueRecoverBody = /* @__PURE__ */ define(() =>
  z.object({ appleReceipt: z.optional(receiptToVerifySchema), androidToken: z.optional(receiptToVerifySchema) }),
);

/** EventReportObject.swift and Event.swift: `extra` and `user` are the app's strings (a paywall's version and id). */
export const dingyueEventsBody = /* @__PURE__ */ define(() =>
  z.object({
    events: z.array(
      z.object({
        name: z.string(),
        extra: z.optional(z.nullable(shortText(4096))),
        user: z.optional(z.nullable(shortText())),
        sessionId: z.optional(z.nullable(shortText())),
      }),
    ),
  }),
);

/** /report/idfa and /report/device_token: a bare JSON string. */
export const dingyueReportValueBody = /* @__PURE__ */ define(() => shortText(1024));

/** EditOneOf.swift: EditStringUnit, EditBooleanUnit or EditArrayStringUnit. */
export const dingyueAttributesBody = /* @__PURE__ */ define(() =>
  z
    .array(
      z.object({
        key: z.string().check(z.minLength(1), z.maxLength(128)),
        value: z.union([shortText(1024), z.boolean(), z.array(shortText(1024)).check(z.maxLength(50))]),
        type: z.optional(z.enum(['string', 'json', 'array'])),
      }),
    )
    .check(z.minLength(1), z.maxLength(50)),
);
export type DingYueAttributes = z.infer<typeof dingyueAttributesBody>;

/** ConversionRequest.swift: the SKAdNetwork conversion value. */
export const dingyueConversionBody = /* @__PURE__ */ define(() =>
  z.object({
    conversionValue: z.number().check(z.int(), z.gte(0), z.lte(63)),
    coarseValue: z.optional(z.enum(['LOW', 'MEDIUM', 'HIGH'])),
  }),
);

/** Attribution.swift: the ids of the app's attribution SDKs. */
export const dingyueAttributionBody = /* @__PURE__ */ define(() =>
  z.object({
    adjustId: z.optional(shortText()),
    appsFlyerId: z.optional(shortText()),
    amplitudeId: z.optional(shortText()),
  }),
);

/** AppleSearchAdsAttributionReportObject.swift: `Version3.1` and Apple's raw answer. */
export const dingyueSearchAdsBody = /* @__PURE__ */ define(() =>
  z.object({
    attribution: z.object({
      'Version3.1': z.record(z.string(), z.string().check(z.maxLength(1024))),
      rawData: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
    }),
  }),
);

/** GlobalSwitch.swift: a switch a developer creates from a debug build. */
export const dingyueGlobalSwitchBody = /* @__PURE__ */ define(() =>
  z.object({ showName: shortText(), varName: shortText(), value: z.boolean() }),
);

/** The receipt of a verification: Apple's whole app receipt, or Google Play's purchase token. */
export function receiptOf(body: { appleReceipt?: string | undefined; androidToken?: string | undefined }): string {
  const receipt = body.appleReceipt ?? body.androidToken;
  if (receipt === undefined) throw new AppError('INVALID_PARAMETER', 'body: appleReceipt or androidToken is required');
  return receipt;
}
