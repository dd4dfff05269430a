import { type MobileDeclaration, REPORT_ERRORS } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { dingyueSearchAdsBody } from '../../lib/schemas/dingyue.js';
import { searchAdsReportBody } from '../../lib/schemas/mobile.js';
import { reportSearchAds } from '../../lib/services/reporting.js';

/** POST /searchads/report (iOS only): Apple Search Ads attribution. */
export const endpoint = {
  body: searchAdsReportBody,
  errors: REPORT_ERRORS,
  dingyue: { body: dingyueSearchAdsBody },
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller, body }) => {
    await reportSearchAds(caller, body);
    return { message: 'Search Ads attribution recorded' };
  },
  async ({ caller, body }) => {
    // The spec's body with its one version key; Apple's raw answer is not kept (the version holds its fields).
    await reportSearchAds(
      caller,
      searchAdsReportBody.parse({ attribution: { 'Version3.1': body.attribution['Version3.1'] } }),
    );
    return {};
  },
);
