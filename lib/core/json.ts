/** JSON objects as requests and signed data (JWS and JWT parts: base64url of the UTF-8 text) carry them. */

/** A JSON object: neither null nor an array. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON value a base64url part encodes; throws as JSON.parse does when it is none. */
export const parseBase64urlJson = (part: string): unknown =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** A value as a base64url part (a JWT's header or claims). */
export const base64urlJson = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
