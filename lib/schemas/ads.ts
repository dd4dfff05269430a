/** The app's ad-network configuration per platform (`admin ads put --app A --file F`), returned by /adsinfo. */
import * as z from 'zod';

const networkConfig = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_. -]{1,64}$/),
    enabled: z.boolean().default(true),
    /** Network-specific identifiers (app id, ad unit ids, placement ids...), all public values. */
    settings: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), z.union([z.string().max(512), z.number(), z.boolean()])).default({}),
  })
  .strict();

const platformConfig = z.object({ networks: z.array(networkConfig).max(50) }).strict();

export const adsConfigSchema = z.object({ ios: platformConfig.optional(), android: platformConfig.optional() }).strict();
export type AdsConfig = z.infer<typeof adsConfigSchema>;
