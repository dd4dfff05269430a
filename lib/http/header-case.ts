/**
 * Header names in lower case before anything reads them: API Gateway passes them as the client
 * sent them. What @middy/http-header-normalizer does with its defaults, in a few lines: that
 * package, with its option schema and canonical-case table, is 1.5 KB of every bundle
 * (docs/decisions/header-case.md); it stays as this module's test oracle.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

function lowerCased<T>(headers: Record<string, T>): Record<string, T> {
  const lowered: Record<string, T> = Object.create(null);
  for (const name in headers) lowered[name.toLowerCase()] = headers[name] as T;
  return lowered;
}

export const lowerCaseHeaders = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: ({ event }) => {
    if (event.headers) event.headers = lowerCased(event.headers);
    if (event.multiValueHeaders) event.multiValueHeaders = lowerCased(event.multiValueHeaders);
  },
});
