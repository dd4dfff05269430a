/**
 * The DingYue iOS SDK's envelope (its ReportSessionResult and the other result models of
 * Classes/OpenAPIs/Models): `{"status": "ok", …}` on success and `{"status": "fail", "errmsg"}`
 * when the request was understood and refused. The SDK reads no error body of a non-2xx answer,
 * so a refusal the app should see is a 200 `fail`; what the caller cannot fix by changing the
 * request (its key, its token, a limit, an outage) keeps its status, so the SDK treats it as a
 * failed call as it does any other.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { AppError } from '../core/errors.js';
import { jsonResponse, requestRefOf } from './envelopes.js';

/**
 * Base of the SDK's dialect: an app on the SDK sets its basePath to `<ApiUrl>/dingyue`. Each call
 * is a route of lib/routes.ts served by the function of the spec's route it mirrors.
 */
export const DINGYUE_BASE = '/dingyue';
export const isDingYuePath = (path: string | undefined): boolean => path?.startsWith(`${DINGYUE_BASE}/`) ?? false;

/** What a DingYue call answers beside `status: "ok"`. */
export type DingYueAnswer = Record<string, unknown>;

/** Statuses a refusal keeps in the SDK's dialect: authentication, permission, limits, outages. */
const KEPT_STATUS = (error: AppError) =>
  error.status === 401 || error.status === 403 || error.retryable || error.status >= 500;

export function dingyueSuccess(answer: DingYueAnswer, headers: Record<string, string>): APIGatewayProxyResult {
  return jsonResponse(200, { ...answer, status: 'ok' }, headers);
}

export function dingyueErrorResponse(error: AppError, requestId: string): APIGatewayProxyResult {
  return jsonResponse(
    KEPT_STATUS(error) ? error.status : 200,
    { status: 'fail', errmsg: error.message, code: error.code, ...requestRefOf(error, requestId) },
    { ...error.headers, 'X-Request-Id': requestId },
  );
}
