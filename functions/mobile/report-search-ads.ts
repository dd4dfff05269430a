import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { searchAdsReportBody } from '../../lib/schemas/mobile.js';
import { reportSearchAds } from '../../lib/services/reporting.js';

/** POST /searchads/report (iOS only): Apple Search Ads attribution. */
export const endpoint = { body: searchAdsReportBody, errors: REPORT_ERRORS } satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller, body }) => {
  await reportSearchAds(caller, body);
  return { message: 'Search Ads attribution recorded' };
});
