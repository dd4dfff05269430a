/** A paywall bundle as the APIs answer it (pure): its record, and where to download it. */
import { bundlePath, type Paywall, type PaywallAnswer } from '../schemas/paywall.js';

/** `download_url` under PAYWALLS_BASE_URL (CloudFront, or `npm start`), null while it is unset. */
export const answerPaywall = (appId: string, paywall: Paywall, baseUrl: string | undefined): PaywallAnswer => ({
  ...paywall,
  download_url: baseUrl ? `${baseUrl.replace(/\/+$/, '')}/${bundlePath(appId, paywall)}` : null,
});
