/**
 * What an answer of a DingYue SDK call (a route under /dingyue, lib/http/dingyue.ts) must be: that
 * SDK's envelope, not ours, and not in docs/openapi.json. A success is a 200 `{"status": "ok", …}`
 * with the members the SDK's result model reads; a refusal is `{"status": "fail", errmsg, code}`:
 * a 200 when the caller can fix the request, else the status of the code (401, 403, a retryable
 * refusal, a 5xx, which alone carries the request id).
 */
import { ERRORS } from '../../lib/core/errors.js';

/** Statuses of each public code of lib/core/errors.ts. */
const STATUSES = new Map<string, Set<number>>();
for (const [kind, entry] of Object.entries(ERRORS)) {
  const code = 'code' in entry ? entry.code : kind;
  if (!STATUSES.has(code)) STATUSES.set(code, new Set());
  STATUSES.get(code)!.add(entry.status);
}

/** A refusal that keeps its status whatever: authentication, permission, an outage. */
const alwaysKept = (status: number) => status === 401 || status === 403 || status >= 500;
/** Codes of the retryable refusals that keep a 4xx: a limit, a conflict, a store not reachable or not set up yet. */
const RETRYABLE_CODES = new Set(['RATE_LIMITED', 'CONCURRENT_MODIFICATION', 'VERIFICATION_FAILED']);

/** The members besides `status` of each call's success (its result model), by route name; the others answer none. */
const SUCCESS_MEMBERS: Record<string, readonly string[]> = {
  DingYueReportSession: ['globalSwitchItems', 'subscribedProducts', 'switchItems'],
  DingYueVerifyFirstReceipt: ['receipt'],
  DingYueRecoverReceipt: ['receipts'],
  DingYueSegmentInfo: ['segmentList'],
};
/** Members a success has only when there is something to answer: the launch's paywall and guide page, when the app set them. */
const OPTIONAL_MEMBERS: Record<string, readonly string[]> = {
  DingYueReportSession: ['guidePage', 'guidePageId', 'paywall', 'paywallId'],
};

/** What in this answer of the DingYue call `routeName` is not the SDK's envelope (empty: all of it is). */
export function dingyueAnswerProblems(routeName: string, status: number, text: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`body is not JSON: ${text.slice(0, 200)}`];
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return [`body is not an object: ${text.slice(0, 200)}`];
  const record = body as Record<string, unknown>;
  const problems: string[] = [];
  const keys = Object.keys(record).sort();
  if (record.status === 'ok') {
    if (status !== 200) problems.push(`status "ok" with HTTP ${status}`);
    const optional = OPTIONAL_MEMBERS[routeName] ?? [];
    const expected = ['status', ...(SUCCESS_MEMBERS[routeName] ?? [])].sort();
    const required = keys.filter((key) => !optional.includes(key));
    if (required.join() !== expected.join())
      problems.push(
        `success members ${keys.join(', ')}, expected ${expected.join(', ')}${optional.length > 0 ? ` (and any of ${optional.join(', ')})` : ''}`,
      );
    return problems;
  }
  if (record.status !== 'fail') return [`status is ${JSON.stringify(record.status)}, not "ok" or "fail"`];
  const allowed = ['code', 'errmsg', 'status', ...(status >= 500 ? ['request_id'] : [])];
  const extra = keys.filter((key) => !allowed.includes(key));
  if (extra.length > 0) problems.push(`refusal has unexpected members ${extra.join(', ')}`);
  if (status >= 500 && typeof record.request_id !== 'string') problems.push('a 5xx without its request_id');
  if (typeof record.errmsg !== 'string' || record.errmsg === '') problems.push('errmsg is not a non-empty string');
  const statuses = typeof record.code === 'string' ? STATUSES.get(record.code) : undefined;
  if (!statuses) problems.push(`code ${JSON.stringify(record.code)} is not in lib/core/errors.ts`);
  else if (status === 200) {
    if ([...statuses].every(alwaysKept)) problems.push(`code ${record.code} answered 200: it keeps its status`);
  } else if (!statuses.has(status)) {
    problems.push(`code ${record.code} with status ${status} (expected ${[...statuses].join(' or ')})`);
  } else if (!alwaysKept(status) && !RETRYABLE_CODES.has(record.code as string)) {
    problems.push(`code ${record.code} with status ${status}: a refusal the caller can fix is a 200 "fail"`);
  }
  return problems;
}
