/**
 * The DingYue SDK's launch (POST /dingyue/sessions/report): the session and the device it runs on
 * recorded, and what the app shows this user read, as the SDK's ReportSessionResult (paywall,
 * guide page, switches, purchases held). The write and the read go in parallel: the read is
 * launchViewOf's, two round trips at most.
 */
import type { MobileCaller } from '../domain/callers.js';
import { dingyueSwitchesOf } from '../domain/dingyue-dialect.js';
import { dingyueCountryOf, dingyueShownOf } from '../domain/dingyue-paywall.js';
import { heldSubscriptions, subscribedObjectOf } from '../domain/subscribed-object.js';
import type { DingYueDevice } from '../schemas/dingyue.js';
import { launchViewOf } from './offerings.js';
import { reportSession } from './reporting.js';

/** What the profile keeps of the device: the SDK's fields, under our names. */
const deviceProfileOf = (device: DingYueDevice) => ({
  os_version: device.osVersion,
  model: device.device,
  app_version: device.appVersion ?? null,
  connection: device.connection ?? null,
  area: device.area ?? null,
  language: device.language ?? null,
  idfv: device.idfv ?? null,
  idfa: device.idfa ?? null,
  device_token: device.deviceToken ?? null,
  device_info: device.deviceInfo ?? {},
  extra_data: device.extraData ?? {},
});

/**
 * The SDK names no session: each launch is one, identified by its request and starting now. A
 * launch it retries after a lost answer is counted again, as the SDK's backend would.
 */
export async function dingyueLaunch(caller: MobileCaller, device: DingYueDevice, requestId: string, now = new Date()) {
  const [, view] = await Promise.all([
    reportSession(
      caller,
      { sessionId: `dingyue:${requestId}`, startTime: now.getTime(), duration: 0 },
      { device: deviceProfileOf(device) },
    ),
    launchViewOf(caller.appId, caller.userId, caller.platform, now),
  ]);
  return {
    ...dingyueShownOf(
      view.shown,
      view.products,
      caller.platform === 'android' ? 'android' : 'ios',
      dingyueCountryOf(device.area),
    ),
    ...dingyueSwitchesOf(view.switches, view.shown.switches),
    subscribedProducts: heldSubscriptions(view.subscriptions, now).map(subscribedObjectOf),
  };
}
