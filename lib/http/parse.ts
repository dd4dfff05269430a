/** zod parsing of request parts into typed values, or an INVALID_PARAMETER AppError with field paths. */
import type * as z from 'zod/mini';
import { AppError, type ErrorDetail } from '../errors.js';

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

/** Parses a JSON request body; a body that is not JSON is a 400, never a 500. */
export function parseJsonBody(raw: string | null, isBase64Encoded: boolean): unknown {
  if (raw === null || raw === '') return undefined;
  const text = isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('INVALID_PARAMETER', 'body is not valid JSON', { details: [{ path: 'body', message: 'is not valid JSON' }] });
  }
}
