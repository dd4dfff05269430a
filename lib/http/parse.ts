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
  /**
   * What the depth check stops at: outside a string, a quote or a bracket; inside, a quote or a
   * backslash. The regular expression engine skips everything else, and a body is mostly string (a
   * notification's JWS, a receipt) that a loop over each character would walk in the interpreter
   * at a cold start (docs/decisions/notification-cold-start.md). Single characters: no backtracking, any length.
   */
  const structure = /["[\]{}]/g;
  const stringEnd = /["\\]/g;
  let depth = 0;
  let i = 0;
  for (;;) {
    structure.lastIndex = i;
    const found = structure.exec(text);
    if (found === null) return false;
    i = found.index + 1;
    const c = text.charCodeAt(found.index);
    if (c === 0x22) {
      // A string: to its closing quote, each backslash escaping the character after it.
      for (;;) {
        stringEnd.lastIndex = i;
        const end = stringEnd.exec(text);
        // Unterminated: nothing after its opening quote is structure.
        if (end === null) return false;
        i = end.index + 1;
        if (text.charCodeAt(end.index) === 0x22) break;
        i++;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else depth--;
  }
}

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
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.from(raw, 'base64'));
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
