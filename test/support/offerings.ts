/** An app's offerings document (`admin offerings put`): two offerings, a placement chosen by segment and one by platform. */
export const OFFERINGS = {
  current: 'standard',
  offerings: [
    {
      id: 'standard',
      description: 'Monthly and yearly',
      packages: [
        { id: '$rc_monthly', products: { ios: 'premium_monthly', android: 'premium_monthly' } },
        { id: '$rc_annual', products: { ios: 'pro_yearly' }, metadata: { badge: 'best value' } },
      ],
      metadata: { headline: 'Go premium' },
    },
    { id: 'gold', packages: [{ id: '$rc_annual', products: { ios: 'pro_yearly' } }] },
  ],
  placements: [
    {
      id: 'onboarding',
      rules: [{ audience: { segment: 'gold_members' }, offering: 'gold' }],
      default: 'standard',
    },
    { id: 'settings', rules: [{ audience: { platform: 'android' }, offering: 'gold' }], default: 'standard' },
  ],
};
