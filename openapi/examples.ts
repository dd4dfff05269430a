/** Examples of the OpenAPI document; test/unit/openapi.test.ts checks each against its schema. */
import { NEVER_ENTITLED } from '../lib/domain/entitlements.js';

const SUBSCRIPTION_ID = 'sub_5f2b9c0d1e3a4b6c7d8e9f01';
export const RECEIPT = 'MIIT0gYJKoZIhvcNAQcCoIITwzCCE78CAQExDzANBglghkgBZQMEAgEFADCCAwgGCSqGSIb3DQEHAaCCAvkEggL1';

export const subscriptionListItem = {
  id: SUBSCRIPTION_ID,
  user_id: 'user_123',
  product_id: 'pro_monthly',
  platform: 'ios',
  status: 'active',
  price: 9.99,
  currency: 'USD',
  started_at: '2026-11-01T10:00:00.000Z',
  expires_at: '2026-12-01T10:00:00.000Z',
  auto_renew: true,
  trial_period: false,
  created_at: '2026-11-01T10:00:00.000Z',
};

export const subscriptionDetail = {
  ...subscriptionListItem,
  trial_expires_at: null,
  updated_at: '2026-11-01T10:00:05.000Z',
  product_info: { name: 'Pro (monthly)', description: 'Every Pro feature', features: ['sync', 'export'] },
  payment_info: {
    transaction_id: '2000000123456789',
    receipt_data: null,
    payment_method: 'app_store',
    last_payment: '2026-11-01T10:00:00.000Z',
    next_billing: '2026-12-01T10:00:00.000Z',
  },
  usage_stats: { features_used: 3, last_activity: '2026-11-20T08:30:00.000Z', total_sessions: 12 },
  paused_at: null,
  paused_until: null,
  pause_reason: null,
  cancel_at_period_end: false,
  cancelled_at: null,
  cancellation_reason: null,
  refunded_at: null,
  billing_issue_at: null,
  grace_period_expires_at: null,
  store: 'app_store',
  environment: 'production',
  transfers: [],
};

export const pagination = { page: 1, limit: 20, total: 1, pages: 1, next_cursor: null };

export const createRequest = {
  user_id: 'user_123',
  product_id: 'pro_monthly',
  platform: 'ios',
  transaction_id: '2000000123456789',
};

export const createdSubscription = {
  id: SUBSCRIPTION_ID,
  user_id: 'user_123',
  product_id: 'pro_monthly',
  status: 'pending_verification',
  created_at: '2026-11-01T10:00:00.000Z',
};

export const verifyRequest = { platform: 'ios', receipt_data: RECEIPT, user_id: 'user_123' };

export const verificationResult = {
  verification_status: 'valid',
  subscription_id: SUBSCRIPTION_ID,
  product_id: 'pro_monthly',
  expires_at: '2026-12-01T10:00:00.000Z',
  auto_renew: true,
  trial_period: false,
  original_transaction_id: '2000000123456789',
  purchase_date: '2026-11-01T10:00:00.000Z',
};

export const product = {
  id: 'pro_monthly',
  name: 'Pro (monthly)',
  description: 'Every Pro feature',
  price: 9.99,
  currency: 'USD',
  billing_period: 'monthly',
  trial_period_days: 7,
  features: ['sync', 'export'],
  platforms: ['ios', 'android'],
  active: true,
};

export const revenueStatistics = {
  total_revenue: 29.97,
  currency: 'USD',
  period: { start: '2026-11-01', end: '2026-11-02' },
  breakdown: [
    { date: '2026-11-01', revenue: 19.98, subscriptions: 2, new_subscriptions: 2, renewals: 0 },
    { date: '2026-11-02', revenue: 9.99, subscriptions: 3, new_subscriptions: 1, renewals: 0 },
  ],
  products: [{ product_id: 'pro_monthly', revenue: 29.97, percentage: 100 }],
  unconverted: [],
};

export const subscriptionMetrics = {
  currency: 'USD',
  period: { start: '2026-11-01', end: '2026-11-02' },
  breakdown: [
    {
      date: '2026-11-01',
      mrr: 27.48,
      active_subscriptions: 3,
      active_trials: 2,
      new_subscriptions: 2,
      churned: 0,
      trial_conversions: 1,
      trials_ended: 1,
      trial_conversion_rate: 100,
      refunds: 0,
      unconverted_mrr: [],
    },
    {
      date: '2026-11-02',
      mrr: 17.49,
      active_subscriptions: 2,
      active_trials: 1,
      new_subscriptions: 0,
      churned: 1,
      trial_conversions: 0,
      trials_ended: 1,
      trial_conversion_rate: 0,
      refunds: 1,
      unconverted_mrr: [],
    },
  ],
  totals: {
    new_subscriptions: 2,
    churned: 1,
    trial_conversions: 1,
    trials_ended: 2,
    trial_conversion_rate: 50,
    refunds: 1,
  },
};

export const eventsRequest = {
  events: [
    { name: 'app_opened', user: 'user_123', sessionId: 'sess_8c1f', extra: { source: 'push' } },
    { name: 'screen_view', user: 'user_123', sessionId: 'sess_8c1f', extra: { screen_name: 'paywall' } },
  ],
};

export const segmentInfo = {
  user_id: 'user_123',
  segments: [
    { id: 'active_7d', name: 'Active in the last 7 days', type: 'built_in' },
    { id: 'power_users', name: 'Power users', type: 'custom' },
  ],
};

const attribution = {
  network: 'appsflyer',
  campaign_id: 'cmp_42',
  campaign_name: 'spring',
  attributed: true,
  data: { campaign_id: 'cmp_42', campaign_name: 'spring' },
  reported_at: '2026-11-01T09:58:00.000Z',
};

export const adsInfo = {
  platform: 'ios',
  app_id: 'app_0123456789abcdef',
  store_id: '1234567890',
  user: { user_id: 'user_123', attribution: { first: attribution, latest: attribution } },
  networks: [{ name: 'admob', enabled: true, settings: { app_id: 'ca-app-pub-123~456' } }],
};

export const customerInfo = {
  user_id: 'user_123',
  entitlements: {
    pro: {
      active: true,
      product_id: 'pro_monthly',
      expires_at: '2026-12-01T10:00:00.000Z',
      will_renew: true,
      period_type: 'normal',
      store: 'app_store',
      environment: 'production',
      billing_issue_detected_at: null,
      grace_period_expires_at: null,
    },
    family: NEVER_ENTITLED,
  },
  subscriptions: [subscriptionListItem],
  first_seen_at: '2026-10-28T09:12:00.000Z',
  last_seen_at: '2026-11-20T08:30:00.000Z',
};

export const webhookDelivery = {
  event_id: 'evt_3f2a9c1b7d4e5f60718293a4',
  event: 'subscription.status_changed',
  subscription_id: SUBSCRIPTION_ID,
  change: 'active->expired',
  status: 'dead',
  attempts: 5,
  next_attempt_at: null,
  last_status_code: 500,
  last_error: null,
  redelivered_at: null,
  created_at: '2026-11-20T08:30:00.000Z',
  updated_at: '2026-11-21T09:30:00.000Z',
};

/** A monthly subscription's life, newest first: verified, renewed by the store, auto-renew turned off, expired. */
export const subscriptionHistory = [
  {
    at: '2026-12-20T08:30:00.000Z',
    version: 4,
    cause: 'sweeper',
    action: 'time_passes',
    notification_type: null,
    changes: [{ field: 'status', from: 'active', to: 'expired' }],
  },
  {
    at: '2026-12-02T17:05:00.000Z',
    version: 3,
    cause: 'store_notification',
    action: 'sync',
    notification_type: 'DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED',
    changes: [{ field: 'auto_renew', from: true, to: false }],
  },
  {
    at: '2026-11-20T08:30:05.000Z',
    version: 2,
    cause: 'store_notification',
    action: 'sync',
    notification_type: 'DID_RENEW',
    changes: [{ field: 'expires_at', from: '2026-11-20T08:30:00.000Z', to: '2026-12-20T08:30:00.000Z' }],
  },
  {
    at: '2026-10-20T08:30:00.000Z',
    version: 1,
    cause: 'verification',
    action: 'create',
    notification_type: null,
    changes: [
      { field: 'status', from: null, to: 'active' },
      { field: 'expires_at', from: null, to: '2026-11-20T08:30:00.000Z' },
      { field: 'auto_renew', from: null, to: true },
      { field: 'product_id', from: null, to: 'premium_monthly' },
      { field: 'price', from: null, to: 9.99 },
      { field: 'currency', from: null, to: 'USD' },
      { field: 'cancel_at_period_end', from: null, to: false },
    ],
  },
];
export const grant = {
  user_id: 'user_123',
  entitlement_id: 'pro',
  active: true,
  granted_at: '2026-11-20T08:30:00.000Z',
  expires_at: '2026-12-20T08:30:00.000Z',
  ended_at: null,
  end_reason: null,
};

export const revokeResult = {
  revoked: true,
  grant: {
    ...grant,
    active: false,
    expires_at: '2026-11-25T10:00:00.000Z',
    ended_at: '2026-11-25T10:00:00.000Z',
    end_reason: 'revoked',
  },
};

export const erasure = {
  user_id: 'user_123',
  status: 'erased',
  removed: {
    profile: 3,
    events: 1250,
    sessions: 40,
    orders: 2,
    reports: 12,
    grants: 1,
    webhook_events: 30,
    subscriptions_detached: 2,
  },
};

export const appOverview = {
  app_id: 'app_0123456789abcdef',
  name: 'Acme Notes',
  reporting_currency: 'USD',
  test_store: false,
  stores: { app_store: true, google_play: true },
  webhook: {
    url: 'https://api.example.com/hooks/subscriptions',
    enabled: true,
    disabled_reason: null,
    events: null,
    paused_until: null,
    updated_at: '2026-11-02T10:00:00.000Z',
  },
  created_at: '2026-11-01T09:00:00.000Z',
};

const standardOffering = {
  id: 'standard',
  description: 'Monthly and yearly',
  packages: [
    { id: '$rc_monthly', products: { ios: 'premium_monthly', android: 'premium_monthly' }, metadata: {} },
    { id: '$rc_annual', products: { ios: 'pro_yearly', android: 'pro_yearly' }, metadata: { badge: 'best value' } },
  ],
  metadata: { headline: 'Go premium' },
  paywall: 'spring_sale',
};
const winbackOffering = {
  id: 'winback',
  description: 'A year at a discount, for churned users',
  packages: [{ id: '$rc_annual', products: { ios: 'pro_yearly_winback' }, metadata: {} }],
  metadata: {},
};

const paywall = (id: string, name: string, version: number, sha256: string) => ({
  id,
  name,
  version,
  sha256,
  bytes: 184_320,
  files: 14,
  uploaded_at: '2026-11-30T08:00:00.000Z',
  download_url: `https://d1234abcd.cloudfront.net/paywalls/app_0123456789abcdef/${id}/${sha256}.zip`,
});
const paywalls = [
  paywall('spring_sale', 'Spring sale', 3, '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'),
  paywall('welcome', 'Welcome guide', 1, '60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752'),
];
const welcomeGuide = { id: 'welcome', pages: 3, purchase: true };

export const appOfferings = {
  current_offering_id: 'standard',
  offerings: [standardOffering, winbackOffering],
  placements: [
    {
      id: 'onboarding',
      rules: [{ audience: { segment: 'churned' }, offering: 'winback' }],
      default: 'standard',
      guide_page: welcomeGuide,
    },
  ],
  switches: [
    {
      key: 'show_trial_banner',
      type: 'boolean',
      description: 'The trial banner on the home screen',
      value: true,
      rules: [{ audience: { segment: 'paying' }, value: false }],
    },
  ],
  paywalls,
  updated_at: '2026-11-30T09:00:00.000Z',
};

export const customerOfferings = {
  user_id: 'user_123',
  platform: 'ios',
  segments: ['churned'],
  current_offering_id: 'standard',
  offerings: [standardOffering, winbackOffering],
  placements: {
    onboarding: {
      offering_id: 'winback',
      guide_page: welcomeGuide,
      chosen_by: { rule: 0, audience: { segment: 'churned' } },
    },
  },
  switches: { show_trial_banner: { value: true, chosen_by: 'default' } },
  paywalls,
};
