/**
 * Response bodies of both APIs, in one place. The subscription API wraps payloads in `data` and
 * errors in `{error: {code, message, details?}}`; the mobile API answers `{status, message}` and
 * `{status: "error", code, message}`. The SDK dialects' envelopes are their own modules'
 * (lib/http/dingyue.ts, lib/http/revenuecat.ts), so that only their functions carry them.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { AppError } from '../core/errors.js';
import type { MobileErrorBody, SubscriptionsErrorBody } from '../schemas/responses.js';

/** The store notification routes answer with the subscription API's envelopes. */
export type ApiName = 'subscriptions' | 'mobile' | 'notifications' | 'revenuecat';
/** The APIs whose envelopes are this module's. */
export type EnvelopedApi = Exclude<ApiName, 'revenuecat'>;

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

/** Only a 5xx carries the request id in its body, in every dialect; every response has it in X-Request-Id. */
export const requestRefOf = (error: AppError, requestId: string): { request_id?: string } =>
  error.status >= 500 ? { request_id: requestId } : {};

export function errorBody(
  api: EnvelopedApi,
  error: AppError,
  requestId: string,
): SubscriptionsErrorBody | MobileErrorBody {
  const requestRef = requestRefOf(error, requestId);
  const retry = error.retryable ? { retryable: true as const } : {};
  if (api === 'mobile') {
    return { status: 'error', code: error.code, message: error.message, ...retry, ...requestRef };
  }
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...retry,
      ...requestRef,
    },
  };
}

export function errorResponse(api: EnvelopedApi, error: AppError, requestId: string): APIGatewayProxyResult {
  return jsonResponse(error.status, errorBody(api, error, requestId), { ...error.headers, 'X-Request-Id': requestId });
}
