/**
 * What an app shows, set by the operator (`admin offerings put`, `admin switches put`): offerings
 * (packages of products per platform), placements (a place in the app choosing an offering) and
 * remote switches (named values), each choosing by audience: first matching rule, else a default.
 * Validated whole by the CLI; the APIs answer them as stored (lib/domain/offering-choice.ts).
 */
import * as z from 'zod/mini';
import { credentialInPublicJson } from '../domain/public-settings.js';
import { PLATFORMS, platformSchema, productIdSchema, uniqueIds, unstorablePlace } from './common.js';
import { define } from './define.js';
import { paywallAnswerSchema, paywallIdSchema } from './paywall.js';

/** Ids of offerings, packages and placements: RevenueCat's package ids (`$rc_monthly`) fit. */
export const OFFERING_ID_PATTERN = /^[A-Za-z0-9_.$-]{1,64}$/;
const offeringIdSchema = /* @__PURE__ */ define(() =>
  z.string().check(z.regex(OFFERING_ID_PATTERN, 'must be 1-64 characters of letters, digits, _ . $ -')),
);

/** Switch keys: what an app's code names them by. */
export const SWITCH_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** Bytes of JSON each stored document may take: an item holds 400 KB, and a launch reads both. */
export const MAX_SHOWN_DOCUMENT_BYTES = 64 * 1024;

/** Who reads what the app shows: anyone holding the sdk key, which ships in the app. */
const READ_BY = 'offerings and switches are readable by any sdk key holder (GET /offerings)';

/** Free-form JSON the app reads is storable as sent. */
const storableCheck = (what: string) =>
  z.superRefine((value: unknown, ctx) => {
    const place = unstorablePlace(value);
    if (place) ctx.addIssue({ code: 'custom', path: place.path, message: `${what}: ${place.message}` });
  });

/** ... and public: no string in it is, or is named like, a credential. */
const noCredentialCheck = (name: string) =>
  z.superRefine((value: unknown, ctx) => {
    const credential = credentialInPublicJson(value, name, READ_BY);
    if (credential) ctx.addIssue({ code: 'custom', path: credential.path, message: credential.message });
  });

const metadataSchema = /* @__PURE__ */ define(() =>
  z._default(
    z
      .record(z.string().check(z.minLength(1), z.maxLength(128)), z.unknown())
      .check(storableCheck('metadata'), noCredentialCheck('metadata')),
    {},
  ),
);

/**
 * Who a rule is for: a segment (built-in or the app's rule segments: country, app version,
 * subscriber or not, a custom property) and/or the request's platform; both given, both must hold.
 */
export const audienceSchema = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      segment: z.optional(z.string().check(z.regex(/^[a-z0-9_]{1,64}$/, 'is not a segment id'))),
      platform: z.optional(platformSchema),
    })
    .check(
      z.refine((audience) => audience.segment !== undefined || audience.platform !== undefined, {
        message: 'names a segment, a platform or both',
      }),
    ),
);
export type Audience = z.infer<typeof audienceSchema>;

export const packageSchema = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      id: offeringIdSchema,
      /** The product sold on each platform the package is offered on. */
      products: z.partialRecord(platformSchema, productIdSchema),
      metadata: metadataSchema,
    })
    .check(
      z.refine((entry) => Object.keys(entry.products).length > 0, {
        path: ['products'],
        message: `names a product for at least one platform (${PLATFORMS.join(', ')})`,
      }),
    ),
);
export type Package = z.infer<typeof packageSchema>;

export const offeringSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    id: offeringIdSchema,
    description: z._default(z.string().check(z.maxLength(1000)), ''),
    packages: z.array(packageSchema).check(z.minLength(1), z.maxLength(20), uniqueIds<Package>('package')),
    metadata: metadataSchema,
    /** The paywall bundle (`admin paywalls upload`) this offering is sold with. */
    paywall: z.optional(paywallIdSchema),
  }),
);
export type Offering = z.infer<typeof offeringSchema>;

/** A guide page bundle (`admin paywalls upload`) a placement opens, selling the offering it chose. */
export const guidePageSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    id: paywallIdSchema,
    /** How many screens the guide pages through. */
    pages: z._default(z.number().check(z.int(), z.gte(1), z.lte(50)), 1),
    /** Whether the guide offers the purchase itself. */
    purchase: z._default(z.boolean(), false),
  }),
);
export type GuidePage = z.infer<typeof guidePageSchema>;

export const placementSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    id: offeringIdSchema,
    /** First match wins; a rule's guide page replaces the placement's for its audience. */
    rules: z._default(
      z
        .array(
          z.strictObject({
            audience: audienceSchema,
            offering: offeringIdSchema,
            guide_page: z.optional(guidePageSchema),
          }),
        )
        .check(z.maxLength(20)),
      [],
    ),
    /** The offering shown when no rule matches. */
    default: offeringIdSchema,
    /** The guide page the app opens here when no rule names one. */
    guide_page: z.optional(guidePageSchema),
  }),
);
export type Placement = z.infer<typeof placementSchema>;

/** `admin offerings put`: the app's offerings, which one is current, and its placements. */
export const offeringsDocumentSchema = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      current: offeringIdSchema,
      offerings: z.array(offeringSchema).check(z.minLength(1), z.maxLength(50), uniqueIds<Offering>('offering')),
      placements: z._default(z.array(placementSchema).check(z.maxLength(50), uniqueIds<Placement>('placement')), []),
    })
    .check(
      z.superRefine((document, ctx) => {
        const ids = new Set(document.offerings.map((offering) => offering.id));
        const unknown = (id: string, path: (string | number)[]) => {
          if (!ids.has(id)) ctx.addIssue({ code: 'custom', path, message: `offering ${id} is not in offerings` });
        };
        unknown(document.current, ['current']);
        document.placements.forEach((placement, at) => {
          unknown(placement.default, ['placements', at, 'default']);
          placement.rules.forEach((rule, r) => {
            unknown(rule.offering, ['placements', at, 'rules', r, 'offering']);
          });
        });
      }),
    ),
);
export type OfferingsDocument = z.infer<typeof offeringsDocumentSchema>;

export const SWITCH_TYPES = ['boolean', 'string', 'number', 'json'] as const;
export type SwitchType = (typeof SWITCH_TYPES)[number];

const holdsType = (type: SwitchType, value: unknown): boolean =>
  type === 'json' ? value !== undefined : typeof value === type;

export const remoteSwitchSchema = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      key: z.string().check(z.regex(SWITCH_KEY_PATTERN, 'must be a letter, then up to 63 letters, digits, _ . -')),
      type: z.enum(SWITCH_TYPES),
      description: z._default(z.string().check(z.maxLength(1000)), ''),
      /** The value when no rule matches. */
      value: z.unknown().check(storableCheck('value')),
      /** First match wins. */
      rules: z._default(
        z
          .array(z.strictObject({ audience: audienceSchema, value: z.unknown().check(storableCheck('value')) }))
          .check(z.maxLength(20)),
        [],
      ),
    })
    .check(
      z.superRefine((entry, ctx) => {
        const values: [unknown, (string | number)[]][] = [
          [entry.value, ['value']],
          ...entry.rules.map((rule, at): [unknown, (string | number)[]] => [rule.value, ['rules', at, 'value']]),
        ];
        for (const [value, path] of values) {
          if (!holdsType(entry.type, value))
            ctx.addIssue({ code: 'custom', path, message: `must be a ${entry.type}, as the switch's type says` });
          // Public: a string value under a credential's name, or that is one, is refused.
          const credential = credentialInPublicJson(value, entry.key, READ_BY);
          if (credential)
            ctx.addIssue({ code: 'custom', path: [...path, ...credential.path], message: credential.message });
        }
      }),
    ),
);
export type RemoteSwitch = z.infer<typeof remoteSwitchSchema>;

/** `admin switches put`: the app's remote switches. */
export const remoteSwitchesSchema = /* @__PURE__ */ define(() =>
  z.array(remoteSwitchSchema).check(
    z.maxLength(200),
    z.superRefine((switches, ctx) => {
      const seen = new Set<string>();
      switches.forEach((entry, at) => {
        if (seen.has(entry.key))
          ctx.addIssue({ code: 'custom', path: [at, 'key'], message: `switch ${entry.key} is listed twice` });
        seen.add(entry.key);
      });
    }),
  ),
);

/** The rule that chose what a user is shown: its place in the list and its audience, or `default`. */
const chosenBySchema = /* @__PURE__ */ define(() =>
  z.union([
    z.literal('default'),
    z.strictObject({ rule: z.number().check(z.int(), z.gte(0)), audience: audienceSchema }),
  ]),
);

/** GET /v1/offerings: what the app shows, as stored. */
export const appOfferingsSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    current_offering_id: z.nullable(z.string()),
    offerings: z.array(offeringSchema),
    placements: z.array(placementSchema),
    switches: z.array(remoteSwitchSchema),
    /** The paywall and guide page bundles, each at its current version. */
    paywalls: z.array(paywallAnswerSchema),
    /** When offerings or switches were last put; null before either. */
    updated_at: z.nullable(z.string()),
  }),
);
export type AppOfferings = z.infer<typeof appOfferingsSchema>;

/** GET /v1/customers/{user_id}/offerings and the mobile GET /offerings: what one user is shown, and why. */
export const customerOfferingsSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    user_id: z.string(),
    /** The platform the rules were matched for; null: none given (rules naming one do not match). */
    platform: z.nullable(platformSchema),
    /** The user's segments (built-in and the app's rule segments) the rules were matched against. */
    segments: z.array(z.string()),
    current_offering_id: z.nullable(z.string()),
    offerings: z.array(offeringSchema),
    placements: z.record(
      z.string(),
      z.strictObject({ offering_id: z.string(), guide_page: z.nullable(guidePageSchema), chosen_by: chosenBySchema }),
    ),
    switches: z.record(z.string(), z.strictObject({ value: z.unknown(), chosen_by: chosenBySchema })),
    /** The bundles the offerings and placements name, each at its current version. */
    paywalls: z.array(paywallAnswerSchema),
  }),
);
export type CustomerOfferings = z.infer<typeof customerOfferingsSchema>;

/** GET /v1/customers/{user_id}/offerings: the platform to match rules for (none: rules naming one do not match). */
export const customerOfferingsQuery = /* @__PURE__ */ define(() =>
  z.strictObject({ platform: z.optional(platformSchema) }),
);
