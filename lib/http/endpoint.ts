/**
 * Builds a Lambda handler for one endpoint from its declaration (lib/http/declaration.ts): a middy
 * stack (header normalisation, request id and logging, error envelopes) around authentication,
 * zod parsing of path/query/body and one call into lib/. Handlers in functions/ are one
 * declaration and one `subscriptionsEndpoint(endpoint, ...)` each.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { AppError, isAppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { isDataStoreUnavailable } from '../data/unavailable.js';
import type { Caller, MobileCaller } from '../domain/callers.js';
import type { RevenueCatCustomerInfo } from '../domain/revenuecat-customer.js';
import { MAX_NOTIFICATION_BYTES } from '../domain/store-purchase.js';
import { appIdSchema, type Platform } from '../schemas/common.js';
import type { ResponseName, ResponseOf } from '../schemas/documented.js';
import type { ReceivedNotification } from '../schemas/responses.js';
import {
  type Authenticated,
  authenticateAndLimit as authenticateAndCount,
  authenticateSdkKey,
  bearerToken,
  countMobileRequest,
  requireUserToken,
} from './auth.js';
import { corsHeaders } from './cors.js';
import {
  type MobileDeclaration,
  mobileRulesOf,
  type RequestDeclaration,
  type RevenueCatDeclaration,
  type SubscriptionsDeclaration,
} from './declaration.js';
import { type DingYueAnswer, dingyueErrorResponse, dingyueSuccess, isDingYuePath } from './dingyue.js';
import { type ApiName, errorResponse, jsonResponse } from './envelopes.js';
import { lowerCaseHeaders } from './header-case.js';
import { readMobileHeaders } from './mobile-headers.js';
import { parseJsonBody, parsePart } from './parse.js';
import {
  customerInfoResponse,
  REVENUECAT_CORS_ORIGIN,
  REVENUECAT_ETAG_HEADER,
  revenuecatAddressBucket,
  revenuecatErrorResponse,
  revenuecatPlatformOf,
  revenuecatSdkKeyOf,
} from './revenuecat.js';

/** What the declaration's schema for a part of the request parses it into; undefined without one. */
type Part<D, K extends 'params' | 'query' | 'body'> = D extends { [P in K]: infer S extends z.ZodMiniType }
  ? z.output<S>
  : undefined;

export interface EndpointRequest<D extends RequestDeclaration, C = Caller> {
  caller: C;
  body: Part<D, 'body'>;
  query: Part<D, 'query'>;
  params: Part<D, 'params'>;
  requestId: string;
}

/** What a success answers under `data`: the payload its declaration names, else nothing. */
type Payload<D> = D extends { response: infer N extends ResponseName } ? ResponseOf<N> : undefined;

/** A success of the subscription API: `{data}`, and on a page of a list `{data, pagination}` (any body undeclared). */
type SubscriptionsBody<D> = D extends { response: ResponseName }
  ? D extends { pagination: infer N extends ResponseName }
    ? { data: Payload<D>; pagination: ResponseOf<N> }
    : { data: Payload<D> }
  : unknown;

/** The answer of a subscription API handler: a declaration naming its statuses has it name one each time, else 200. */
export type EndpointReply<D extends SubscriptionsDeclaration = SubscriptionsDeclaration> = {
  body: SubscriptionsBody<D>;
  headers?: Record<string, string>;
} & (D extends { statuses: readonly (infer S)[] } ? { status: S } : { status?: 200 });

/** Largest accepted request body of the subscription API. */
export const MAX_BODY_BYTES = 1_048_576;

/** Unknown errors become a 503 (retryable) when the data store is unavailable, else a 500. */
function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (isDataStoreUnavailable(error)) {
    return new AppError('SERVICE_UNAVAILABLE', undefined, {
      retryable: true,
      headers: { 'Retry-After': '1' },
      cause: error,
    });
  }
  return new AppError('INTERNAL_ERROR', undefined, { cause: error });
}

const requestIdOf = (event: APIGatewayProxyEvent, context: Context): string =>
  event.requestContext?.requestId ?? context.awsRequestId;

/** The answer to a refusal, in an API's envelope. */
type ErrorAnswer = (error: AppError, requestId: string, event: APIGatewayProxyEvent) => APIGatewayProxyResult;

/** The subscription API's envelope (lib/http/envelopes.ts). */
const subscriptionsError: ErrorAnswer = (error, requestId) => errorResponse('subscriptions', error, requestId);

/** The mobile API's envelope, and under /dingyue the DingYue SDK's. */
const mobileError: ErrorAnswer = (error, requestId, event) =>
  isDingYuePath(event.resource) ? dingyueErrorResponse(error, requestId) : errorResponse('mobile', error, requestId);

/** Sets the request id on every log line and maps any error to the API's envelope. */
function envelopeMiddleware(answerError: ErrorAnswer): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: (request) => {
      logger.appendKeys({ request_id: requestIdOf(request.event, request.context), route: request.event.resource });
    },
    after: () => {
      logger.removeKeys(['request_id', 'route']);
    },
    onError: (request) => {
      const requestId = requestIdOf(request.event, request.context);
      const appError = toAppError(request.error);
      if (appError.status >= 500) {
        const cause = appError.cause ?? request.error;
        logger.error('request failed', {
          request_id: requestId,
          code: appError.code,
          error:
            cause instanceof Error ? { name: cause.name, message: cause.message, stack: cause.stack } : String(cause),
        });
      }
      logger.removeKeys(['request_id', 'route']);
      request.response = answerError(appError, requestId, request.event);
    },
  };
}

/**
 * API Gateway gives each query parameter's last value, and every value of it in the multi-value
 * map; an event built by hand may hold undefined, which reads as absent.
 */
function readQuery(event: APIGatewayProxyEvent, lists?: readonly string[]): Record<string, string | string[]> {
  // Own keys whatever their names (`__proto__`), for the schema to refuse.
  return Object.fromEntries(
    Object.entries(event.queryStringParameters ?? {}).flatMap(([name, value]): [string, string | string[]][] => {
      const values = event.multiValueQueryStringParameters?.[name] ?? [value];
      const listed = lists?.includes(name);
      if (values.length > 1 && !listed)
        throw new AppError('INVALID_PARAMETER', `query parameter ${name} is given more than once`, {
          details: [{ path: `query.${name}`, message: 'must be given once' }],
        });
      return value === undefined ? [] : [[name, listed ? (values as string[]) : value]];
    }),
  );
}

function readBody(event: APIGatewayProxyEvent, api: ApiName): unknown {
  if (event.body === null || event.body === '') return undefined;
  const bytes = event.isBase64Encoded ? Buffer.byteLength(event.body, 'base64') : Buffer.byteLength(event.body);
  if (bytes > MAX_BODY_BYTES) {
    // The mobile API states its limits as parameter rules (400); the subscription API says 413.
    throw new AppError(
      api === 'mobile' ? 'INVALID_PARAMETER' : 'PAYLOAD_TOO_LARGE',
      `Request body exceeds the limit of ${MAX_BODY_BYTES} bytes (1 MB)`,
    );
  }
  // Stryker disable next-line StringLiteral: any text but JSON's media type is refused alike
  const contentType = event.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(contentType)) {
    throw new AppError('INVALID_PARAMETER', 'Content-Type must be application/json', {
      details: [{ path: 'headers.content-type', message: 'must be application/json' }],
    });
  }
  return parseJsonBody(event.body, event.isBase64Encoded);
}

function parseRequest<D extends RequestDeclaration>(
  endpoint: D,
  event: APIGatewayProxyEvent,
  api: ApiName,
  bodySchema = endpoint.body,
) {
  let params: unknown;
  if (endpoint.params) {
    try {
      params = parsePart('params', endpoint.params, event.pathParameters ?? {});
    } catch (error) {
      if (endpoint.paramsNotFound) throw new AppError(endpoint.paramsNotFound);
      throw error;
    }
  }
  const rawQuery = readQuery(event, endpoint.queryLists);
  const query = endpoint.query ? parsePart('query', endpoint.query, rawQuery) : undefined;
  if (!endpoint.query && Object.keys(rawQuery).length > 0) {
    throw new AppError('INVALID_PARAMETER', 'this endpoint takes no query parameters');
  }
  const rawBody = readBody(event, api);
  // A body is validated even when absent, so a schema with required fields rejects an empty request.
  const body = bodySchema ? parsePart('body', bodySchema, rawBody ?? {}) : undefined;
  return { params, query, body } as Pick<EndpointRequest<D>, 'params' | 'query' | 'body'>;
}

/**
 * One middy stack for every endpoint: normalised headers, request id in the logs, the API's
 * envelopes. `handle` may add headers every response must carry, success or error (the
 * RateLimit fields once the caller is known).
 */
function buildEndpoint(
  handle: (
    event: APIGatewayProxyEvent,
    requestId: string,
    responseHeaders: Record<string, string>,
  ) => Promise<APIGatewayProxyResult>,
  answerError: ErrorAnswer,
) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(lowerCaseHeaders())
    .use(envelopeMiddleware(answerError))
    .handler(async (event, context) => {
      const responseHeaders: Record<string, string> = {};
      try {
        const result = await handle(event, requestIdOf(event, context), responseHeaders);
        return { ...result, headers: { ...responseHeaders, ...result.headers } };
      } catch (error) {
        throw toAppError(error).withHeaders(responseHeaders);
      }
    });
}

/** Authenticates the secret key and counts the request against its rate limit (429 past it). */
async function authenticateAndLimit(
  rawKey: string,
  responseHeaders: Record<string, string>,
): Promise<Omit<Authenticated, 'headers'>> {
  const { headers, ...authenticated } = await authenticateAndCount(rawKey, 'secret');
  Object.assign(responseHeaders, headers);
  return authenticated;
}

/** An endpoint of the subscription management API (Bearer secret key, `{error: {...}}` envelope). */
export function subscriptionsEndpoint<D extends SubscriptionsDeclaration>(
  endpoint: D,
  run: (request: EndpointRequest<D>) => Promise<EndpointReply<D>>,
) {
  return buildEndpoint(async (event, requestId, responseHeaders) => {
    Object.assign(responseHeaders, corsHeaders(event.headers.origin));
    const { caller } = await authenticateAndLimit(bearerToken(event.headers.authorization), responseHeaders);
    const reply = await run({ caller, requestId, ...parseRequest(endpoint, event, 'subscriptions') });
    const response = jsonResponse(reply.status ?? 200, reply.body, {
      ...reply.headers,
      'X-Request-Id': requestId,
    });
    return endpoint.conditional ? endpoint.conditional(response, event.headers['if-none-match']) : response;
  }, subscriptionsError);
}

export interface MobileReply<D extends MobileDeclaration = MobileDeclaration> {
  /** Goes under `data`, next to `status` and `message`. */
  data?: Payload<D>;
  message?: string;
}

/**
 * An endpoint of the mobile reporting API: the caller authenticated (authenticateMobile) and
 * `{status, message, data?}` bodies. Under /dingyue, the same caller checks with the SDK's header
 * rule, the SDK's body, the handler's DingYue call and the SDK's envelope (lib/http/dingyue.ts).
 */
export function mobileEndpoint<D extends MobileDeclaration>(
  endpoint: D,
  run: (request: EndpointRequest<D, MobileCaller>) => Promise<MobileReply<D>>,
  ...dingyue: D extends { dingyue: object } ? [DingYueRun<D>] : []
) {
  const rules = mobileRulesOf(endpoint);
  const dingyueRules = { ...rules, headers: endpoint.dingyue?.headers ?? 'dingyue' };
  return buildEndpoint(async (event, requestId, responseHeaders) => {
    const inDingYue = isDingYuePath(event.resource);
    const caller = await authenticateMobile(event, inDingYue ? dingyueRules : rules, responseHeaders);
    if (inDingYue) {
      const answer = await (dingyue[0] as DingYueRun<D>)({
        caller,
        requestId,
        ...parseRequest(endpoint, event, 'mobile', endpoint.dingyue?.body),
      } as EndpointRequest<DingYueRequestOf<D>, MobileCaller>);
      return dingyueSuccess(answer, { 'X-Request-Id': requestId });
    }
    const reply = await run({ caller, requestId, ...parseRequest(endpoint, event, 'mobile') });
    // Without data the body has no `data` key: JSON leaves an undefined member out.
    const body = { status: 'success', message: reply.message ?? 'OK', data: reply.data };
    const response = jsonResponse(200, body, { 'X-Request-Id': requestId });
    return endpoint.conditional ? endpoint.conditional(response, event.headers['if-none-match']) : response;
  }, mobileError);
}

/** A mobile endpoint's request as its DingYue call is parsed: the SDK's body in place of the spec's. */
type DingYueRequestOf<D extends MobileDeclaration> = Omit<D, 'body'> &
  (D extends { dingyue: { body: infer S extends z.ZodMiniType } } ? { body: S } : { body?: undefined });

/** The handler of a mobile endpoint's DingYue call: what it answers beside `status: "ok"`. */
export type DingYueRun<D extends MobileDeclaration> = (
  request: EndpointRequest<DingYueRequestOf<D>, MobileCaller>,
) => Promise<DingYueAnswer>;

/**
 * The sdk key in X-API-KEY (absent: 401 MISSING_REQUIRED_HEADER; unknown or revoked: 401
 * INVALID_API_KEY), the header rule, X-APP-ID the key's app (403), a signed X-USER-TOKEN when the
 * endpoint acts on the user and the app requires one (401), then the request counted against its
 * user's rate limit (429). What is refused before the count carries RateLimit-Policy alone; from
 * the count on, the user's RateLimit fields too.
 */
async function authenticateMobile(
  event: APIGatewayProxyEvent,
  rules: ReturnType<typeof mobileRulesOf>,
  responseHeaders: Record<string, string>,
): Promise<MobileCaller> {
  const apiKey = event.headers['x-api-key']?.trim();
  if (!apiKey) throw new AppError('API_KEY_MISSING', 'Missing required header X-API-KEY');
  const { caller: key, userTokenSecret, headers: policy } = await authenticateSdkKey(apiKey);
  Object.assign(responseHeaders, policy);
  const identity = readMobileHeaders(event.headers, rules.headers, event.body !== null && event.body !== '');
  if (identity.appIdHeader !== key.appId) throw new AppError('FORBIDDEN', 'X-APP-ID is not the app of this API key');
  const userProven = userTokenSecret !== undefined && rules.actsOnUser;
  if (userProven) {
    requireUserToken(event.headers['x-user-token'], {
      secret: userTokenSecret,
      appId: key.appId,
      userId: identity.userId,
    });
  }
  // Counted only once the user is known and, where required, proven: a request naming another
  // user without that user's token cannot spend their limit.
  Object.assign(responseHeaders, await countMobileRequest(key, identity.userId));
  return { ...key, ...identity, userProven };
}

/** A RevenueCat call's caller: the sdk key's app and the user the request names (none for a call about no user). */
export type RevenueCatCaller<D extends RevenueCatDeclaration = RevenueCatDeclaration> = Caller & {
  /** X-Platform's store, for a declaration that reads it. */
  platform: D extends { platform: true } ? Platform : Platform | undefined;
} & (D extends { user: string } ? { userId: string } : { userId?: undefined });

/** What a RevenueCat call answers: a customer info (validated by its ETag), or another JSON body. */
export type RevenueCatReply<D extends RevenueCatDeclaration = RevenueCatDeclaration> = (
  | { customerInfo: RevenueCatCustomerInfo; body?: undefined }
  | { body: Record<string, unknown>; customerInfo?: undefined }
  | { status: 204; body?: undefined; customerInfo?: undefined }
) &
  (D extends { statuses: readonly (infer S)[] } ? { status: S } : { status?: 200 });

/**
 * An endpoint of RevenueCat's SDK dialect (lib/http/revenuecat.ts): the sdk key as a Bearer token,
 * the request parsed, the user it names (path or body) proven where the app requires user tokens,
 * and counted against that user's limit, as on the mobile API. A GET's customer info is a 304 to
 * the SDK that holds it (X-RevenueCat-ETag); a POST is never a 304, since the SDKs would replay a
 * cached answer to another purchase.
 */
export function revenuecatEndpoint<D extends RevenueCatDeclaration>(
  endpoint: D,
  run: (request: EndpointRequest<D, RevenueCatCaller<D>>) => Promise<RevenueCatReply<D>>,
  /** How it answers a refusal, where it answers some in a shape of their own (lib/http/revenuecat.ts). */
  answerError: ErrorAnswer = revenuecatErrorResponse,
) {
  return buildEndpoint(async (event, requestId, responseHeaders) => {
    Object.assign(responseHeaders, REVENUECAT_CORS_ORIGIN);
    const {
      caller: key,
      userTokenSecret,
      headers: policy,
    } = await authenticateSdkKey(revenuecatSdkKeyOf(event.headers.authorization));
    Object.assign(responseHeaders, policy);
    const request = parseRequest(endpoint, event, 'revenuecat');
    const userId = endpoint.user && namedUserOf(endpoint.user, request);
    if (userId !== undefined && userTokenSecret !== undefined) {
      requireUserToken(event.headers['x-user-token'], { secret: userTokenSecret, appId: key.appId, userId });
    }
    const counted = userId ?? revenuecatAddressBucket(event.requestContext?.identity?.sourceIp ?? 'unknown');
    Object.assign(responseHeaders, await countMobileRequest(key, counted));
    const platform = endpoint.platform ? revenuecatPlatformOf(event.headers['x-platform']) : undefined;
    const caller = { ...key, userId, platform } as RevenueCatCaller<D>;
    const reply = await run({ caller, requestId, ...request });
    const headers = { 'X-Request-Id': requestId };
    if (reply.status === 204) return { statusCode: 204, headers, body: '' };
    if (!reply.customerInfo) return jsonResponse(reply.status ?? 200, reply.body, headers);
    const held = event.httpMethod === 'GET' ? event.headers[REVENUECAT_ETAG_HEADER.toLowerCase()] : undefined;
    return customerInfoResponse(reply.customerInfo, reply.status ?? 200, held, headers);
  }, answerError);
}

/**
 * A RevenueCat call the SDKs send without a key (purchases-ios HTTPRequestPath.swift,
 * `authenticated`: the health check and the health report's availability): no app is known, so it
 * reads nothing and gives the same answer to everyone; a caller costs one invocation, bounded by
 * the stage's limits. The path, any query and any body are checked as every endpoint checks them.
 */
export function revenuecatKeylessEndpoint(endpoint: RequestDeclaration, answer: Record<string, unknown>) {
  return buildEndpoint(async (event, requestId, responseHeaders) => {
    Object.assign(responseHeaders, REVENUECAT_CORS_ORIGIN);
    parseRequest(endpoint, event, 'revenuecat');
    return jsonResponse(200, answer, { 'X-Request-Id': requestId });
  }, revenuecatErrorResponse);
}

/** The user a RevenueCat call names, where its declaration says. */
function namedUserOf(
  where: NonNullable<RevenueCatDeclaration['user']>,
  request: { params?: unknown; body?: unknown },
): string {
  const named = (where === 'path' ? request.params : request.body) as Record<string, string>;
  return named[where === 'body.new_app_user_id' ? 'new_app_user_id' : 'app_user_id']!;
}

export interface NotificationRequest {
  /** The app of the path, checked to exist. */
  appId: string;
  /** The parsed JSON body, not yet verified: the handler's store decoder verifies it. */
  body: unknown;
  headers: Record<string, string | undefined>;
  requestId: string;
}

/**
 * An endpoint receiving a store's notifications: no API key (the store cannot send one); the
 * notification itself is signed (App Store, test store) or the push carries a Google-signed token
 * (Google Play), which the handler's decoder verifies. A body over 64 KB is refused unread;
 * a notification that fails verification is a 400 INVALID_NOTIFICATION (logged); what may succeed
 * later is a 503 so the store retries. Success: 200 `{data: {notification_id, type, outcome}}`.
 */
export function notificationEndpoint(run: (request: NotificationRequest) => Promise<ReceivedNotification>) {
  return buildEndpoint(async (event, requestId) => {
    try {
      return await receiveNotification(event, requestId, run);
    } catch (error) {
      // A store retries a delivery only on a 5xx: what may succeed later (a store API, the table) is one.
      if (isAppError(error) && error.retryable && error.status < 500) {
        throw new AppError('SERVICE_UNAVAILABLE', error.message, { retryable: true, cause: error });
      }
      throw error;
    }
  }, notificationError);
}

/** A refusal of a store notification is logged: the store shows no one its answer. */
const notificationError: ErrorAnswer = (error, requestId) => {
  if (error.status < 500) {
    logger.warn('store notification refused', { request_id: requestId, code: error.code, reason: error.message });
  }
  return errorResponse('notifications', error, requestId);
};

async function receiveNotification(
  event: APIGatewayProxyEvent,
  requestId: string,
  run: (request: NotificationRequest) => Promise<ReceivedNotification>,
): Promise<APIGatewayProxyResult> {
  const path = appIdSchema.safeParse(event.pathParameters?.app_id);
  if (!path.success) throw new AppError('INVALID_NOTIFICATION', 'the path names no app');
  const appId = path.data;
  if (event.body === null || event.body === '') throw new AppError('INVALID_NOTIFICATION', 'the body is empty');
  const bytes = event.isBase64Encoded ? Buffer.byteLength(event.body, 'base64') : Buffer.byteLength(event.body);
  if (bytes > MAX_NOTIFICATION_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `a store notification is at most ${MAX_NOTIFICATION_BYTES} bytes (64 KB)`);
  }
  let body: unknown;
  try {
    body = parseJsonBody(event.body, event.isBase64Encoded);
  } catch {
    throw new AppError('INVALID_NOTIFICATION', 'the body is not JSON');
  }
  const data = await run({ appId, body, headers: event.headers, requestId });
  logger.info('store notification', { app_id: appId, ...data });
  return jsonResponse(200, { data }, { 'X-Request-Id': requestId });
}
