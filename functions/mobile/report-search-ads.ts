import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { searchAdsReportBody } from '../../lib/schemas/mobile.js';
import { reportSearchAds } from '../../lib/services/reporting.js';

/** POST /searchads/report (iOS only): Apple Search Ads attribution. */
export const handler = mobileEndpoint({ body: searchAdsReportBody }, async ({ caller, body }) => {
  await reportSearchAds(caller, body);
  return { message: 'Search Ads attribution recorded' };
});
