/**
 * Calls a route's handler in-process with an API Gateway proxy event, as the local gateway does
 * (same handler module, same Lambda context), without the HTTP server in between.
 */

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ENDPOINT_TIMEOUT_SECONDS, ROUTES, type Route } from '../../lib/routes.js';
import { compileRoutes, importHandler, matchRoute } from '../../local/gateway.js';
import { lambdaContext } from '../../local/lambda-context.js';

export interface BenchRequest {
  /** The request path, e.g. `/v1/subscriptions/sub_…`; path parameters are taken from it. */
  path: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

export function routeNamed(name: string): Route {
  const route = ROUTES.find((candidate) => candidate.name === name);
  if (!route) throw new Error(`no route ${name}`);
  return route;
}

/** The proxy event API Gateway sends for this request to the route's function (the body base64-encoded, as the stack's API passes every body). */
export function proxyEvent(
  route: Route,
  request: BenchRequest,
  requestId: string = randomUUID(),
): APIGatewayProxyEvent {
  const match = matchRoute(compileRoutes([route]), route.method, request.path);
  if (!match) throw new Error(`${request.path} is not a path of ${route.name} (${route.path})`);
  const query = request.query && Object.keys(request.query).length > 0 ? request.query : undefined;
  const headers = { ...request.headers, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) };
  return {
    resource: route.path,
    path: request.path,
    httpMethod: route.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: query ?? null,
    multiValueQueryStringParameters: query
      ? Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]]))
      : null,
    pathParameters: Object.keys(match.pathParameters).length > 0 ? match.pathParameters : null,
    stageVariables: null,
    body: request.body !== undefined ? Buffer.from(JSON.stringify(request.body)).toString('base64') : null,
    isBase64Encoded: request.body !== undefined,
    requestContext: {
      requestId,
      resourcePath: route.path,
      httpMethod: route.method,
      path: request.path,
    } as APIGatewayProxyEvent['requestContext'],
  };
}

/** The route's handler and what it is called with, prepared apart from the call (the hot-path benchmark times the call alone). */
export async function prepareInvocation(
  route: Route,
  request: BenchRequest,
): Promise<() => Promise<APIGatewayProxyResult>> {
  const handler = await importHandler(route);
  const requestId = randomUUID();
  const event = proxyEvent(route, request, requestId);
  const context = lambdaContext(route.name, requestId, ENDPOINT_TIMEOUT_SECONDS * 1000);
  return async () => {
    const result = await handler(event, context, () => undefined);
    if (!result) throw new Error(`${route.name} returned nothing`);
    return result;
  };
}

export async function invoke(route: Route, request: BenchRequest): Promise<APIGatewayProxyResult> {
  return (await prepareInvocation(route, request))();
}

/** Like invoke, but a status other than 2xx is an error (a benchmark must measure what succeeds). */
export async function invokeOk(route: Route, request: BenchRequest): Promise<APIGatewayProxyResult> {
  const result = await invoke(route, request);
  if (result.statusCode < 200 || result.statusCode >= 300)
    throw new Error(`${route.name} ${request.path} answered ${result.statusCode}: ${result.body}`);
  return result;
}
