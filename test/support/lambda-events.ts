/**
 * Calls a handler of lib/http/endpoint.ts in the test's own process, with the API Gateway proxy
 * event the gateway would pass, and collects what the logger writes. For tests of the HTTP edge
 * itself: no gateway in between, so a mutant of lib/http is what answers.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { vi } from 'vitest';
import { type LogLevel, logger } from '../../lib/core/logger.js';

export const LAMBDA_REQUEST_ID = 'lambda-request';

export const lambdaContext = {
  awsRequestId: LAMBDA_REQUEST_ID,
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

export interface EventParts {
  resource?: string;
  method?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | undefined> | null;
  multiQuery?: Record<string, string[] | undefined> | null;
  pathParameters?: Record<string, string> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  /** The request context's id; `null` leaves the request context out. */
  requestId?: string | null;
}

export function apiEvent(parts: EventParts = {}): APIGatewayProxyEvent {
  const resource = parts.resource ?? '/v1/test';
  return {
    resource,
    path: resource,
    httpMethod: parts.method ?? 'GET',
    headers: parts.headers ?? {},
    multiValueHeaders: {},
    queryStringParameters: (parts.query ?? null) as APIGatewayProxyEvent['queryStringParameters'],
    multiValueQueryStringParameters: (parts.multiQuery ??
      null) as APIGatewayProxyEvent['multiValueQueryStringParameters'],
    pathParameters: parts.pathParameters ?? null,
    stageVariables: null,
    body: parts.body ?? null,
    isBase64Encoded: parts.isBase64Encoded ?? false,
    requestContext: (parts.requestId === null
      ? undefined
      : { requestId: parts.requestId ?? 'req-1' }) as APIGatewayProxyEvent['requestContext'],
  };
}

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>;

export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when the body is empty. */
  body: any;
}

/** Invokes the handler as Lambda would and parses its answer. */
export async function invoke(handler: Handler, event: APIGatewayProxyEvent): Promise<Answer> {
  const result = (await handler(event, lambdaContext)) as APIGatewayProxyResult;
  return {
    status: result.statusCode,
    headers: (result.headers ?? {}) as Record<string, string>,
    body: result.body === '' ? undefined : JSON.parse(result.body),
  };
}

/**
 * Turns logging on at `level` and collects every entry written until `vi.restoreAllMocks()`;
 * the caller sets the level back (SILENT in tests) when done.
 */
export function captureLogEntries(level: LogLevel = 'INFO'): Record<string, any>[] {
  logger.setLogLevel(level);
  const entries: Record<string, any>[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      for (const line of String(chunk).split('\n')) if (line.startsWith('{')) entries.push(JSON.parse(line));
      return true;
    });
  }
  return entries;
}
