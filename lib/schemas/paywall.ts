/**
 * Paywalls and guide pages: web bundles (a zip with `index.html` at its root) the operator uploads
 * with `admin paywalls upload`, each upload of an id its next version. An offering names the
 * paywall it is sold with, a placement the guide page it opens (lib/schemas/offering.ts).
 * Bundles are public: anyone holding the app's sdk key is answered their download URL.
 */
import * as z from 'zod/mini';
import { define } from './define.js';

/** A bundle's id is a path segment of its download URL and object key. */
export const PAYWALL_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const paywallIdSchema = /* @__PURE__ */ define(() =>
  z.string().check(z.regex(PAYWALL_ID_PATTERN, 'must be 1-64 characters of letters, digits, _ -')),
);

/** Bytes a bundle's zip may take: a launch downloads it over a phone's connection. */
export const MAX_BUNDLE_BYTES = 10 * 1024 * 1024;
/** Bytes its files may take unzipped, and how many there may be (a zip bomb stops here). */
export const MAX_BUNDLE_UNZIPPED_BYTES = 50 * 1024 * 1024;
export const MAX_BUNDLE_FILES = 1000;
/** Bundles an app may have: the list is one item a launch reads. */
export const MAX_PAYWALLS_PER_APP = 100;

/** One bundle's current version, as stored. */
export const paywallSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    id: paywallIdSchema,
    name: z.string().check(z.minLength(1), z.maxLength(200)),
    /** 1 for the first upload of the id, then one more for each. */
    version: z.number().check(z.int(), z.gte(1)),
    /** SHA-256 of the zip, hex: its object is named by it, so a URL never changes what it serves. */
    sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    bytes: z.number().check(z.int(), z.gte(0)),
    files: z.number().check(z.int(), z.gte(1)),
    uploaded_at: z.string(),
  }),
);
export type Paywall = z.infer<typeof paywallSchema>;

/** A bundle as the APIs answer it: where to download it (null while PAYWALLS_BASE_URL is unset). */
export const paywallAnswerSchema = /* @__PURE__ */ define(() =>
  z.extend(paywallSchema, { download_url: z.nullable(z.string()) }),
);
export type PaywallAnswer = z.infer<typeof paywallAnswerSchema>;

/** The path CloudFront and `npm start` serve bundles at, and the bucket's key prefix. */
export const PAYWALLS_PREFIX = 'paywalls';
/** The stack output naming the bundles' bucket (cdk/stack.ts; `admin --aws paywalls upload` reads it). */
export const PAYWALLS_BUCKET_OUTPUT = 'PaywallsBucketName';

/** The zip's path under the bundles' base: the same in the bucket (`paywalls/` before it) and locally. */
export const bundlePath = (appId: string, paywall: Pick<Paywall, 'id' | 'sha256'>): string =>
  `${appId}/${paywall.id}/${paywall.sha256}.zip`;
