/** zod parsing of request parts into typed values, or an INVALID_PARAMETER AppError with field paths. */
import type * as z from 'zod/mini';
import { AppError, type ErrorDetail } from '../core/errors.js';

export type RequestPart = 'body' | 'query' | 'params';

export function toDetails(part: RequestPart, error: z.core.$ZodError): ErrorDetail[] {
  return error.issues.map((issue) => {
    const keysMessage = issue.code === 'unrecognized_keys' ? `: ${issue.keys.join(', ')}` : '';
    return { path: [part, ...issue.path.map(String)].join('.'), message: `${issue.message}${keysMessage}` };
  });
}

export function parsePart<S extends z.ZodMiniType>(part: RequestPart, schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = toDetails(part, result.error);
  const first = details[0]!;
  throw new AppError('INVALID_PARAMETER', `${first.path}: ${first.message}`, { details });
}

/**
 * Deepest nesting of objects and arrays a JSON body may have (the body itself is level 1). Far
 * below DynamoDB's 32 levels per item, so whatever a body nests can be stored, and no recursive
 * step (validation, JSON.stringify, marshalling) can exhaust the stack on a hostile body.
 */
export const MAX_JSON_DEPTH = 20;

const invalidBody = (message: string) =>
  new AppError('INVALID_PARAMETER', `body ${message}`, { details: [{ path: 'body', message }] });

/** Whether the JSON text nests deeper than MAX_JSON_DEPTH: one pass over the text, before any parser recurses into it. */
function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  // Stryker disable next-line EqualityOperator: one step past the end reads NaN, which matches no bracket
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses a JSON request body; a body that is not UTF-8, not JSON or nested too deep is a 400,
 * never a 500. A base64 body (API Gateway passes every body so: the API's binary media types
 * cover all types) is decoded strictly: bytes that are not UTF-8 are refused, not replaced by U+FFFD.
 */
export function parseJsonBody(raw: string | null, isBase64Encoded: boolean): unknown {
  if (raw === null || raw === '') return undefined;
  let text = raw;
  if (isBase64Encoded) {
    try {
      text = utf8.decode(Buffer.from(raw, 'base64'));
    } catch {
      throw invalidBody('is not valid UTF-8');
    }
  }
  if (nestsTooDeep(text)) throw invalidBody(`nests deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidBody('is not valid JSON');
  }
}
