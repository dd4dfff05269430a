/** Calls a handler module in-process with an API Gateway proxy event, as the local gateway does. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { HttpMethod } from '../../lib/routes.js';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult | void>;

export interface ApiRequest {
  method: HttpMethod;
  /** The route's path as in lib/routes.ts (`{name}` segments filled from pathParameters). */
  resource: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Sent as JSON (with Content-Type application/json). */
  body?: unknown;
}

/** The proxy event API Gateway would send for this request. */
export function proxyEvent(request: ApiRequest): APIGatewayProxyEvent {
  const params = request.pathParameters ?? {};
  const path = request.resource.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const hasBody = request.body !== undefined;
  return {
    resource: request.resource, path, httpMethod: request.method,
    headers: { ...request.headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) }, multiValueHeaders: {},
    queryStringParameters: request.query ?? null, multiValueQueryStringParameters: null,
    pathParameters: Object.keys(params).length > 0 ? params : null, stageVariables: null,
    body: hasBody ? JSON.stringify(request.body) : null, isBase64Encoded: false,
    requestContext: { requestId: 'bench' } as APIGatewayProxyEvent['requestContext'],
  };
}

export const BENCH_CONTEXT = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

export async function invoke(handler: Handler, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const result = await handler(event, BENCH_CONTEXT);
  if (!result) throw new Error('handler returned nothing');
  return result;
}

export const invokeGet = (handler: Handler, path: string, secretKey: string, query: Record<string, string>): Promise<APIGatewayProxyResult> =>
  invoke(handler, proxyEvent({ method: 'GET', resource: path, query, headers: { Authorization: `Bearer ${secretKey}` } }));
