/** Use cases of the mobile reporting API: what SDKs report, stored per app and user. */

import { reportConfig } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { mergeProfileMaps } from '../data/profiles.js';
import { chargeReportQuota } from '../data/report-quotas.js';
import { appendReport, type ReportContext, storeEvents, storeOrder, storeSession } from '../data/reports.js';
import type { MobileCaller } from '../domain/callers.js';
import { epochMillis, normalizeEvents } from '../domain/events.js';
import { type QuotaCharge, quotaLimits } from '../domain/report-quota.js';
import {
  type AttributionReportBody,
  CUSTOM_PROPERTY_LIMITS,
  type CustomPropertiesBody,
  type ReportConversionBody,
  type ReportOrderBody,
  type ReportSessionBody,
  type SearchAdsReportBody,
  type UserAttributesBody,
} from '../schemas/mobile.js';
import type { Attribution } from '../schemas/responses.js';

const contextOf = (caller: MobileCaller): ReportContext => ({
  appId: caller.appId,
  platform: caller.platform,
  sdkVersion: caller.sdkVersion,
});

/** Bytes of a report as sent (its JSON): what the stored-bytes quota counts, once per stored copy. */
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

const QUOTA_REFUSALS = {
  events: (limit: number) => `this app's quota of ${limit} reported events per minute is used up`,
  bytes: (limit: number) => `this app's quota of ${limit} report bytes a day is used up`,
};

/**
 * Counts a valid report against its app's quotas before anything of it is stored: past one, 429
 * RATE_LIMITED with Retry-After (seconds until that window closes), and the report is not counted.
 * Counted in batches per function instance (lib/data/report-quotas.ts): most reports write nothing here.
 */
async function chargeQuota(caller: MobileCaller, charge: Partial<QuotaCharge>): Promise<void> {
  const refusal = await chargeReportQuota(
    caller.appId,
    { events: charge.events ?? 0, bytes: charge.bytes ?? 0 },
    quotaLimits(reportConfig.reportQuotas, reportConfig.eventRetentionDays),
  );
  if (refusal) {
    const seconds = refusal.retryAfterSeconds;
    throw new AppError('RATE_LIMITED', `${QUOTA_REFUSALS[refusal.counter](refusal.limit)}; retry in ${seconds} s`, {
      headers: { 'Retry-After': String(seconds) },
      retryable: true,
    });
  }
}

export async function reportEvents(caller: MobileCaller, events: unknown): Promise<{ accepted: number }> {
  const now = new Date();
  // All or nothing: the whole batch is validated before anything is written.
  const normalized = normalizeEvents(events, caller, now);
  await chargeQuota(caller, { events: normalized.length, bytes: jsonBytes(events) });
  await storeEvents(contextOf(caller), caller.userId, normalized, now);
  return { accepted: normalized.length };
}

/** `profileSet`: profile fields the session sets too (the DingYue SDK's device), counted in the report's bytes. */
export async function reportSession(
  caller: MobileCaller,
  body: ReportSessionBody,
  profileSet: Record<string, unknown> = {},
): Promise<{ counted: boolean }> {
  const extra = Object.keys(profileSet).length > 0 ? jsonBytes(profileSet) : 0;
  await chargeQuota(caller, { bytes: jsonBytes(body) + extra });
  return storeSession(
    contextOf(caller),
    caller.userId,
    { sessionId: body.sessionId, startTime: epochMillis(body.startTime), duration: body.duration },
    new Date(),
    profileSet,
  );
}

export async function reportOrder(caller: MobileCaller, body: ReportOrderBody): Promise<{ recorded: boolean }> {
  await chargeQuota(caller, { bytes: jsonBytes(body) });
  return storeOrder(contextOf(caller), caller.userId, body, new Date());
}

/** `coarseValue`: SKAdNetwork's coarse conversion value, which the DingYue SDK reports beside the value. */
export async function reportConversion(
  caller: MobileCaller,
  body: ReportConversionBody,
  coarseValue?: string,
): Promise<void> {
  const report = coarseValue === undefined ? body : { ...body, coarseValue };
  await chargeQuota(caller, { bytes: jsonBytes(report) });
  await appendReport(
    contextOf(caller),
    caller.userId,
    'conversion',
    report,
    { add: { conversion_count: 1 } },
    new Date(),
  );
}

/**
 * The latest report of each type is kept (an item per type and user, expiring with the history);
 * every report in the history. A user may report at most REPORT_TYPES_PER_USER types.
 */
export async function reportTyped(caller: MobileCaller, type: string, body: Record<string, unknown>): Promise<void> {
  await chargeQuota(caller, { bytes: 2 * jsonBytes(body) });
  const { typesPerUser } = reportConfig.reportQuotas;
  const outcome = await appendReport(contextOf(caller), caller.userId, `report:${type}`, body, {}, new Date(), {
    keepLatestOfType: { type, typesPerUser },
  });
  if (outcome === 'too_many_types') {
    throw new AppError('INVALID_PARAMETER', `a user may report at most ${typesPerUser} report types`, {
      details: [{ path: 'params.type', message: `at most ${typesPerUser} types per user` }],
    });
  }
}

export async function reportGlobalSwitch(caller: MobileCaller, body: Record<string, unknown>): Promise<void> {
  await chargeQuota(caller, { bytes: 2 * jsonBytes(body) });
  await appendReport(
    contextOf(caller),
    caller.userId,
    'global_switch',
    body,
    { set: { global_switch: body } },
    new Date(),
  );
}

/** Merges into the user's custom properties (null deletes one); the user may hold at most 100. */
export async function setCustomProperties(
  caller: MobileCaller,
  body: CustomPropertiesBody,
): Promise<{ properties: number }> {
  const merged = await mergeProfileMaps(
    caller.appId,
    caller.userId,
    (current) => {
      const custom = { ...current.custom_properties };
      for (const [name, value] of Object.entries(body.properties)) {
        if (value === null) delete custom[name];
        else custom[name] = value;
      }
      if (Object.keys(custom).length > CUSTOM_PROPERTY_LIMITS.perUser) {
        throw new AppError(
          'INVALID_PARAMETER',
          `a user may have at most ${CUSTOM_PROPERTY_LIMITS.perUser} custom properties`,
          {
            details: [{ path: 'body.properties', message: `at most ${CUSTOM_PROPERTY_LIMITS.perUser} per user` }],
          },
        );
      }
      return { ...current, custom_properties: custom };
    },
    new Date(),
  );
  return { properties: Object.keys(merged.custom_properties).length };
}

/** Sets standard attributes (null clears one). */
export async function updateUserAttributes(caller: MobileCaller, body: UserAttributesBody): Promise<void> {
  await mergeProfileMaps(
    caller.appId,
    caller.userId,
    (current) => {
      const attributes = { ...current.attributes };
      for (const [name, value] of Object.entries(body)) {
        if (value === null) delete attributes[name];
        else attributes[name] = value;
      }
      return { ...current, attributes };
    },
    new Date(),
  );
}

async function recordAttribution(caller: MobileCaller, attribution: Attribution, now: Date): Promise<void> {
  // The history and the profile's latest (and perhaps first) attribution.
  await chargeQuota(caller, { bytes: 2 * jsonBytes(attribution) });
  await appendReport(
    contextOf(caller),
    caller.userId,
    'attribution',
    attribution as unknown as Record<string, unknown>,
    {
      set: { attribution_latest: attribution },
      setIfAbsent: { attribution_first: attribution },
    },
    now,
  );
}

const stringField = (data: Record<string, unknown>, ...names: string[]): string | null => {
  for (const name of names)
    if (typeof data[name] === 'string' || typeof data[name] === 'number') return String(data[name]);
  return null;
};

export async function reportAttribution(caller: MobileCaller, body: AttributionReportBody): Promise<void> {
  const now = new Date();
  await recordAttribution(
    caller,
    {
      network: body.network,
      campaign_id: stringField(body.data, 'campaign_id', 'campaignId', 'campaign'),
      campaign_name: stringField(body.data, 'campaign_name', 'campaignName'),
      attributed: true,
      data: body.data,
      reported_at: now.toISOString(),
    },
    now,
  );
}

/** Apple Search Ads (iOS only): the one version object, read for campaign id, name and the attribution flag. */
export async function reportSearchAds(caller: MobileCaller, body: SearchAdsReportBody): Promise<void> {
  if (caller.platform !== 'ios')
    throw new AppError('INVALID_PARAMETER', 'Search Ads attribution is reported by iOS apps only (X-PLATFORM: iOS)');
  const [version, fields] = Object.entries(body.attribution)[0]!;
  const now = new Date();
  await recordAttribution(
    caller,
    {
      network: 'apple_search_ads',
      campaign_id: fields['iad-campaign-id'] ?? null,
      campaign_name: fields['iad-campaign-name'] ?? null,
      attributed: fields['iad-attribution'] === 'true',
      data: { version, ...fields },
      reported_at: now.toISOString(),
    },
    now,
  );
}
