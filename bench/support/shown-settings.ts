/**
 * What a typical app shows, for the benchmarks that read it: three offerings of three packages,
 * three placements choosing by segment and platform, a paywall per offering and a guide page, a
 * rule segment, six remote switches. Stored through the CLI's data calls, so the benchmarks read
 * what an operator's files would store.
 */
import { putSegments } from '../../lib/data/app-config.js';
import { putOfferings, putRemoteSwitches } from '../../lib/data/offerings.js';
import { recordPaywallVersion } from '../../lib/data/paywalls.js';
import { offeringsDocumentSchema, remoteSwitchesSchema } from '../../lib/schemas/offering.js';
import type { Product } from '../../lib/schemas/product.js';

const packages = [
  { id: '$rc_monthly', products: { ios: 'premium_monthly', android: 'premium_monthly' } },
  { id: '$rc_annual', products: { ios: 'pro_yearly', android: 'pro_yearly' }, metadata: { badge: 'best value' } },
  { id: 'web_monthly', products: { web: 'premium_monthly' } },
];

/** What the paywalls show of the two products the packages sell. */
const catalogue: Product[] = [
  ['premium_monthly', 'Premium', 9.99, 'monthly'],
  ['pro_yearly', 'Pro', 59.99, 'yearly'],
].map(([id, name, price, billing_period]) => ({
  id: id as string,
  name: name as string,
  description: `${name} with every feature`,
  price: price as number,
  currency: 'USD',
  billing_period: billing_period as Product['billing_period'],
  trial_period_days: 0,
  features: ['sync', 'export'],
  platforms: ['ios', 'android', 'web'],
  active: true,
}));

export async function seedShownSettings(appId: string): Promise<void> {
  // A paywall per offering and an onboarding guide, as uploaded (the zips themselves are not read by a launch).
  for (const [n, id] of ['standard_paywall', 'winback_paywall', 'german_paywall', 'welcome_guide'].entries())
    await recordPaywallVersion(appId, { id, name: id, sha256: String(n).repeat(64), bytes: 180_000, files: 12 });
  await putSegments(appId, [
    {
      id: 'german_speakers',
      name: 'German speakers',
      match: 'all',
      conditions: [{ field: 'attributes.language', op: 'eq', value: 'de' }],
    },
  ]);
  await putOfferings(
    appId,
    offeringsDocumentSchema.parse({
      current: 'standard',
      offerings: ['standard', 'winback', 'german'].map((id) => ({
        id,
        description: `The ${id} offering`,
        paywall: `${id}_paywall`,
        packages,
        metadata: { headline: `Go premium (${id})`, show_close_after_seconds: 3 },
      })),
      placements: [
        {
          id: 'onboarding',
          guide_page: { id: 'welcome_guide', pages: 3, purchase: true },
          rules: [
            { audience: { segment: 'churned' }, offering: 'winback' },
            { audience: { segment: 'german_speakers', platform: 'ios' }, offering: 'german' },
          ],
          default: 'standard',
        },
        { id: 'settings', rules: [{ audience: { platform: 'android' }, offering: 'winback' }], default: 'standard' },
        { id: 'feature_gate', default: 'standard' },
      ],
    }),
    catalogue,
  );
  await putRemoteSwitches(
    appId,
    remoteSwitchesSchema.parse([
      {
        key: 'show_trial_banner',
        type: 'boolean',
        value: true,
        rules: [{ audience: { segment: 'paying' }, value: false }],
      },
      { key: 'paywall_theme', type: 'json', value: { color: 'blue', layout: 'cards' } },
      { key: 'discount_percent', type: 'number', value: 0, rules: [{ audience: { segment: 'churned' }, value: 30 }] },
      { key: 'onboarding_steps', type: 'number', value: 3 },
      { key: 'headline', type: 'string', value: 'Unlock everything' },
      { key: 'new_editor', type: 'boolean', value: false, rules: [{ audience: { platform: 'ios' }, value: true }] },
    ]),
  );
}
