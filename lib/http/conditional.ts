/**
 * Conditional GET for endpoints read often and changing rarely (customer info): the response
 * carries an ETag of its body, and a request whose If-None-Match names it gets 304 without a body,
 * so a client that kept the last answer downloads nothing when nothing changed.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';

/** A strong validator: equal bodies, equal tags (160 bits of SHA-256, base64url). */
export const etagOf = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** If-None-Match names this tag: `*`, or one of its comma-separated tags (weak comparison, RFC 9110 13.1.2). */
export function noneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/**
 * The 200 with its ETag, or a 304 with the ETag and no body when the client holds this body.
 * `private, no-cache`: a shared cache must not keep one user's answer, and a client revalidates each time.
 */
export type ConditionalAnswer = typeof conditionalResponse;

export function conditionalResponse(
  response: APIGatewayProxyResult,
  ifNoneMatch: string | undefined,
): APIGatewayProxyResult {
  const etag = etagOf(response.body);
  const headers: Record<string, string | number | boolean> = {
    ...response.headers,
    ETag: etag,
    'Cache-Control': 'private, no-cache',
  };
  if (response.statusCode !== 200 || !noneMatchHits(ifNoneMatch, etag)) return { ...response, headers };
  const { 'Content-Type': _contentType, ...withoutType } = headers;
  return { statusCode: 304, headers: withoutType, body: '' };
}
