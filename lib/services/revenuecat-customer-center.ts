/** The customer center's configuration purchases-ios and purchases-android read: apart, so no other bundle carries it. */
import { getApp } from '../data/apps.js';
import { type CustomerCenterConfig, customerCenterConfigOf } from '../domain/revenuecat-customer-center.js';
import type { Platform } from '../schemas/common.js';

/** GET /v1/customercenter/{app_user_id}: the same for every user of the app, with its support email. */
export async function revenuecatCustomerCenter(appId: string, platform: Platform): Promise<CustomerCenterConfig> {
  return customerCenterConfigOf((await getApp(appId))?.support_email, platform);
}
