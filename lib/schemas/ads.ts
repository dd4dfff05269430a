/**
 * The app's ad-network configuration per platform (`admin ads put --app A --file F`), returned by
 * /adsinfo to any holder of the app's sdk key: public values only, credentials are refused.
 */
import * as z from 'zod/mini';
import { secretInPublicSetting } from '../domain/public-settings.js';
import { define } from './define.js';

const networkConfig = /* @__PURE__ */ define(() =>
  z.strictObject({
    name: z.string().check(z.regex(/^[A-Za-z0-9_. -]{1,64}$/)),
    enabled: z._default(z.boolean(), true),
    /** Network-specific identifiers (app id, ad unit ids, placement ids...), all public values. */
    settings: z._default(
      z
        .record(
          z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/)),
          z.union([z.string().check(z.maxLength(512)), z.number(), z.boolean()]),
        )
        .check(
          z.superRefine((settings, ctx) => {
            for (const [name, value] of Object.entries(settings)) {
              const problem = secretInPublicSetting(name, value);
              if (problem) ctx.issues.push({ code: 'custom', message: problem, input: value, path: [name] });
            }
          }),
        ),
      {},
    ),
  }),
);

const platformConfig = /* @__PURE__ */ define(() =>
  z.strictObject({ networks: z.array(networkConfig).check(z.maxLength(50)) }),
);

export const adsConfigSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ ios: z.optional(platformConfig), android: z.optional(platformConfig) }),
);
export type AdsConfig = z.infer<typeof adsConfigSchema>;
