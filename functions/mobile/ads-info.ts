import { AppError } from '../../lib/core/errors.js';
import type { MobileDeclaration } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { adsInfoParams } from '../../lib/schemas/mobile.js';
import { adsInfo } from '../../lib/services/audience.js';

/** GET /adsinfo/{platform}/{app_id}/{store_id}: the user's attribution and the app's ad networks for the platform. */
export const endpoint = { params: adsInfoParams, response: 'AdsInfo' } satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller, params }) => {
  if (params.app_id !== caller.appId) throw new AppError('FORBIDDEN', 'app_id is not the app of this API key');
  return {
    message: 'Ad-network information',
    data: await adsInfo(caller.appId, caller.userId, params.platform, params.store_id),
  };
});
