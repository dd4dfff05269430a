/**
 * The local stand-in for API Gateway (REST API, Lambda proxy integration): turns each HTTP request
 * into an APIGatewayProxyEvent (body base64-encoded, as the deployed API passes it), invokes the
 * handler module that lib/routes.ts names for it, in this process, and writes the handler's result
 * back. Literal path segments win over `{params}`, as in API Gateway, so /v1/subscriptions/products
 * is never taken for a subscription id.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Handler } from 'aws-lambda';
import { AppError } from '../lib/core/errors.js';
import { redactText } from '../lib/core/redact.js';
import { CORS_MAX_AGE_SECONDS, preflightHeaders } from '../lib/http/cors.js';
import { type ApiName, errorResponse as envelopedErrorResponse } from '../lib/http/envelopes.js';
import { isRevenueCatPath, revenuecatErrorResponse, revenuecatPreflightHeaders } from '../lib/http/revenuecat.js';
import {
  APP_PATH,
  CUSTOMERS_BASE,
  ENDPOINT_TIMEOUT_SECONDS,
  endpointFunctions,
  NOTIFICATIONS_BASE,
  OFFERINGS_PATH,
  ROUTES,
  type Route,
  SUBSCRIPTIONS_BASE,
  WEBHOOKS_BASE,
} from '../lib/routes.js';
import { apiReference } from './api-reference.js';
import { consoleSite } from './console.js';
import { lambdaContext } from './lambda-context.js';
import { paywallFiles } from './paywall-files.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** API Gateway's own limit on a request payload. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

interface CompiledRoute {
  route: Route;
  segments: string[];
}

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** A path that is an endpoint's, asked with a method that endpoint does not serve. */
export interface MethodNotAllowed {
  api: ApiName;
  /** The methods the path serves, for the Allow header. */
  allow: string[];
}

const splitPath = (path: string): string[] => path.split('/').filter(Boolean);

export function compileRoutes(routes: readonly Route[]): CompiledRoute[] {
  return routes.map((route) => ({ route, segments: splitPath(route.path) }));
}

/**
 * The API Gateway resource a path resolves to, as API Gateway picks it: a literal segment wins
 * over a `{param}` at the first place they differ, whatever the method. The method is chosen only
 * afterwards, so PUT /v1/subscriptions/verify is the verify resource's (405), never an update of
 * subscription "verify".
 */
function matchResource(
  compiled: CompiledRoute[],
  path: string,
): { routes: Route[]; pathParameters: Record<string, string> } | undefined {
  const requestSegments = splitPath(path);
  let best: { segments: string[]; routes: Route[]; pathParameters: Record<string, string> } | undefined;
  for (const candidate of compiled) {
    if (candidate.segments.length !== requestSegments.length) continue;
    const pathParameters: Record<string, string> = {};
    const matches = candidate.segments.every((segment, i) => {
      const actual = requestSegments[i]!;
      if (segment.startsWith('{')) {
        let decoded: string;
        try {
          decoded = decodeURIComponent(actual);
        } catch {
          return false;
        }
        pathParameters[segment.slice(1, -1)] = decoded;
        return true;
      }
      return segment === actual;
    });
    if (!matches) continue;
    if (best && best.segments.join('/') === candidate.segments.join('/')) {
      best.routes.push(candidate.route);
    } else if (!best || moreSpecific(candidate.segments, best.segments)) {
      best = { segments: candidate.segments, routes: [candidate.route], pathParameters };
    }
  }
  return best && { routes: best.routes, pathParameters: best.pathParameters };
}

/** True when `a` has a literal where `b` has a parameter, at the first segment where they differ. */
function moreSpecific(a: string[], b: string[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const aParam = a[i]!.startsWith('{');
    const bParam = b[i]!.startsWith('{');
    if (aParam !== bParam) return bParam;
  }
  return false;
}

/**
 * The route serving this method and path; or, when the path is an endpoint's but the method is
 * not one it serves, the methods it does serve; undefined for a path that is no endpoint's.
 */
export function resolveRoute(
  compiled: CompiledRoute[],
  method: string,
  path: string,
): RouteMatch | MethodNotAllowed | undefined {
  const resource = matchResource(compiled, path);
  if (!resource) return undefined;
  const route = resource.routes.find((r) => r.method === method);
  if (route) return { route, pathParameters: resource.pathParameters };
  return { api: resource.routes[0]!.api, allow: resource.routes.map((r) => r.method).sort() };
}

/** The route serving this method and path, if any. */
export function matchRoute(compiled: CompiledRoute[], method: string, path: string): RouteMatch | undefined {
  const resolved = resolveRoute(compiled, method, path);
  return resolved && 'route' in resolved ? resolved : undefined;
}

/** A refusal of the gateway's own (no route, a body too large, a function timed out) in the API's envelope. */
const errorResponse = (api: ApiName, error: AppError, requestId: string): APIGatewayProxyResult =>
  api === 'revenuecat' ? revenuecatErrorResponse(error, requestId) : envelopedErrorResponse(api, error, requestId);

/** Whose envelope answers a path that matches no route: the API's prefix decides. */
export function apiOfPath(path: string): ApiName {
  if (
    [SUBSCRIPTIONS_BASE, CUSTOMERS_BASE, WEBHOOKS_BASE, APP_PATH, OFFERINGS_PATH].some((base) => path.startsWith(base))
  )
    return 'subscriptions';
  if (isRevenueCatPath(path)) return 'revenuecat';
  return path.startsWith(`${NOTIFICATIONS_BASE}/`) ? 'notifications' : 'mobile';
}

function readBody(request: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolveBody(size > MAX_REQUEST_BYTES ? 'too_large' : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export function toProxyEvent(
  request: IncomingMessage,
  url: URL,
  match: RouteMatch,
  body: Buffer,
  requestId: string,
): APIGatewayProxyEvent {
  // Maps, not object literals: a header or parameter named __proto__ or constructor is data, as
  // in API Gateway's JSON event, never a property of Object.prototype to assign or push to.
  const headers = new Map<string, string>();
  const multiValueHeaders = new Map<string, string[]>();
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!;
    const value = request.rawHeaders[i + 1]!;
    headers.set(name, value);
    multiValueHeaders.set(name, [...(multiValueHeaders.get(name) ?? []), value]);
  }
  const query = new Map<string, string>();
  const multiQuery = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) {
    query.set(name, value);
    multiQuery.set(name, [...(multiQuery.get(name) ?? []), value]);
  }
  const hasQuery = url.searchParams.size > 0;
  return {
    resource: match.route.path,
    path: url.pathname,
    httpMethod: request.method ?? 'GET',
    headers: Object.fromEntries(headers),
    multiValueHeaders: Object.fromEntries(multiValueHeaders),
    queryStringParameters: hasQuery ? Object.fromEntries(query) : null,
    multiValueQueryStringParameters: hasQuery ? Object.fromEntries(multiQuery) : null,
    pathParameters: Object.keys(match.pathParameters).length > 0 ? match.pathParameters : null,
    stageVariables: null,
    // As API Gateway does for binary media types (cdk/constructs/api.ts: all of them): the bytes
    // as sent, so the handler, not the gateway, decides what is valid UTF-8.
    body: body.length > 0 ? body.toString('base64') : null,
    isBase64Encoded: body.length > 0,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: undefined,
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: request.method ?? 'GET',
      path: url.pathname,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: match.route.name,
      resourcePath: match.route.path,
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

export type ProxyHandler = Handler<APIGatewayProxyEvent, APIGatewayProxyResult>;

const handlers = new Map<string, Promise<ProxyHandler>>();

/** The handler of the module a route names, loaded once (as a warm Lambda function holds it). */
export function importHandler(route: Route): Promise<ProxyHandler> {
  let loaded = handlers.get(route.handler);
  if (!loaded) {
    loaded = import(pathToFileURL(resolve(REPO_ROOT, route.handler)).href).then(
      (module: { handler: ProxyHandler }) => module.handler,
    );
    handlers.set(route.handler, loaded);
  }
  return loaded;
}

function writeResult(response: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

export interface LocalGateway {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * The handler's result, or FUNCTION_TIMED_OUT once the function's timeout has passed: what API
 * Gateway answers when Lambda stops a function at its timeout. In this process the handler cannot
 * be stopped; it runs on, and its late result is dropped.
 */
async function invokeWithTimeout(
  invoke: () => Promise<APIGatewayProxyResult>,
  timeoutMs: number,
): Promise<APIGatewayProxyResult | 'timed_out'> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed_out'>((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout('timed_out'), timeoutMs);
  });
  try {
    return await Promise.race([invoke(), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The URL of a request target, its path with each run of slashes merged into one, as API Gateway
 * resolves it: `ApiUrl` ends with `/`, so `<ApiUrl>/notifications/...` asks for `//notifications/...`.
 * Parsed against a base, `//notifications/x` would be a host and the path `/x`.
 */
export function requestUrl(target: string): URL {
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  const query = queryAt === -1 ? '' : target.slice(queryAt);
  return new URL(`http://localhost/${path.replace(/^\/+/, '').replace(/\/{2,}/g, '/')}${query}`);
}

export async function startGateway(options: {
  port: number;
  host?: string;
  routes?: readonly Route[];
  /** Each function's timeout; tests shorten it, everyone else gets the deployed one. */
  functionTimeoutMs?: number;
  /** Also serve the API reference (/openapi.json, /docs): `npm start` does, API Gateway does not. */
  apiReference?: boolean;
  /** Also serve the operator console at /console (CloudFront's, in AWS). */
  console?: boolean;
  /** Also serve the paywall bundles of this folder at /paywalls (CloudFront's, in AWS). */
  paywallsDir?: string;
}): Promise<LocalGateway> {
  const site = options.console ? consoleSite() : undefined;
  const bundles = options.paywallsDir ? paywallFiles(options.paywallsDir) : undefined;
  const compiled = compileRoutes(options.routes ?? ROUTES);
  // The deployed function of each route (the V1 and V2 paths of an endpoint share one), by route name.
  const functionNames = new Map(
    endpointFunctions(options.routes ?? ROUTES).flatMap((fn) => fn.routes.map((route) => [route.name, fn.name])),
  );
  const functionTimeoutMs = options.functionTimeoutMs ?? ENDPOINT_TIMEOUT_SECONDS * 1000;

  const server = createServer(async (request, response) => {
    const requestId = randomUUID();
    const url = requestUrl(request.url ?? '/');
    const api = apiOfPath(url.pathname);
    try {
      const method = request.method ?? 'GET';
      // Files `npm start` serves beside the API (the console at /console, bundles at /paywalls, the reference at /docs).
      const page =
        site?.(method, url.pathname) ??
        (await bundles?.(method, url.pathname)) ??
        (options.apiReference ? await apiReference(method, url.pathname) : undefined);
      if (page) {
        request.resume();
        response.writeHead(page.status, { ...page.headers, 'X-Request-Id': requestId });
        response.end(method === 'HEAD' ? undefined : page.body);
        return;
      }
      // API Gateway answers the CORS preflights itself, on the resources of the subscription API
      // and RevenueCat's dialect (cdk/constructs/api-surface.ts).
      if (method === 'OPTIONS' && (api === 'subscriptions' || api === 'revenuecat')) {
        if (resolveRoute(compiled, 'OPTIONS', url.pathname)) {
          request.resume();
          const allowed =
            api === 'revenuecat'
              ? revenuecatPreflightHeaders(CORS_MAX_AGE_SECONDS)
              : preflightHeaders(request.headers.origin);
          response.writeHead(204, { ...allowed, 'X-Request-Id': requestId });
          response.end();
          return;
        }
      }
      const match = resolveRoute(compiled, request.method ?? 'GET', url.pathname);
      const body = await readBody(request);
      if (!match) {
        writeResult(
          response,
          errorResponse(
            api,
            new AppError('ROUTE_NOT_FOUND', `No endpoint ${request.method} ${url.pathname}`),
            requestId,
          ),
        );
        return;
      }
      if (!('route' in match)) {
        const allow = match.allow.join(', ');
        writeResult(
          response,
          errorResponse(
            match.api,
            new AppError('METHOD_NOT_ALLOWED', undefined, { headers: { Allow: allow } }),
            requestId,
          ),
        );
        return;
      }
      if (body === 'too_large') {
        writeResult(response, errorResponse(match.route.api, new AppError('PAYLOAD_TOO_LARGE'), requestId));
        return;
      }
      const handler = await importHandler(match.route);
      const event = toProxyEvent(request, url, match, body, requestId);
      const functionName = functionNames.get(match.route.name)!;
      const context = lambdaContext(functionName, requestId, functionTimeoutMs);
      const result = await invokeWithTimeout(
        async () => (await handler(event, context, () => undefined)) as APIGatewayProxyResult,
        functionTimeoutMs,
      );
      if (result === 'timed_out') {
        console.error(
          JSON.stringify({
            level: 'ERROR',
            message: `gateway: ${functionName} timed out after ${functionTimeoutMs} ms`,
            request_id: requestId,
          }),
        );
        writeResult(response, errorResponse(match.route.api, new AppError('FUNCTION_TIMED_OUT'), requestId));
        return;
      }
      writeResult(response, result);
    } catch (error) {
      // Handlers map their own errors; reaching here is a bug in a handler or in this gateway.
      console.error(
        JSON.stringify({
          level: 'ERROR',
          message: 'gateway: handler threw',
          request_id: requestId,
          error: redactText(String(error)),
        }),
      );
      if (!response.headersSent) writeResult(response, errorResponse(api, new AppError('INTERNAL_ERROR'), requestId));
      else response.destroy();
    }
  });
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolveListen());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
