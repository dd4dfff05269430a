/** Use cases of the mobile reporting API: what SDKs report, stored per app and user. */
import { normalizeEvents } from '../domain/events.js';
import { storeEvents, storeSession, type ReportContext } from '../data/reports.js';
import type { MobileCaller } from '../http/endpoint.js';
import type { ReportSessionBody } from '../schemas/mobile.js';

const contextOf = (caller: MobileCaller): ReportContext => ({ appId: caller.appId, platform: caller.platform, sdkVersion: caller.sdkVersion });

export async function reportEvents(caller: MobileCaller, events: unknown): Promise<{ accepted: number }> {
  const now = new Date();
  // All or nothing: the whole batch is validated before anything is written.
  const normalized = normalizeEvents(events, caller.userId, now);
  await storeEvents(contextOf(caller), normalized, now);
  return { accepted: normalized.length };
}

export async function reportSession(caller: MobileCaller, body: ReportSessionBody): Promise<{ counted: boolean }> {
  const startMs = body.startTime < 1e11 ? body.startTime * 1000 : body.startTime;
  return storeSession(contextOf(caller), caller.userId, { sessionId: body.sessionId, startTime: startMs, duration: body.duration }, new Date());
}
