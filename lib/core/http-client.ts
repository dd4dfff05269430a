/**
 * A small HTTP(S) client over node:http(s), for the store APIs and Secrets Manager: a process's
 * first fetch() sets up undici (its WebAssembly HTTP parser and web streams), which tripled the
 * CPU of a cold Google Play notification function's first request (bench/cold-start.ts; docs/benchmarks.md). As with
 * fetch, redirects are not followed and any status is an answer; the timeout covers the whole
 * exchange, body included; a body larger than MAX_RESPONSE_BYTES is an error.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Store API answers are a few KB; anything far larger is not one. */
const MAX_RESPONSE_BYTES = 1_048_576;

export interface HttpAnswer {
  status: number;
  ok: boolean;
  /** The body parsed as JSON; rejects when it is not JSON. */
  json(): Promise<unknown>;
  /** The body as text (UTF-8). */
  text(): string;
  /** A response header (name in lower case), e.g. a store's Retry-After. */
  header(name: string): string | undefined;
}

export interface HttpRequestOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

export function httpSend(url: string, options: HttpRequestOptions): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : undefined;
    if (!send) return reject(new Error(`unsupported URL protocol ${target.protocol}`));
    const body = options.body;
    const request = send(target, {
      method: options.method ?? 'GET',
      headers: {
        ...options.headers,
        ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
      },
    });
    const timer = setTimeout(
      () => request.destroy(new TimeoutError(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    request.on('error', fail);
    request.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) request.destroy(new Error(`the answer exceeds ${MAX_RESPONSE_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        clearTimeout(timer);
        const status = response.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status,
          ok: status >= 200 && status < 300,
          json: async () => JSON.parse(text) as unknown,
          text: () => text,
          // Only Set-Cookie comes as a list in Node, and no store API sends one.
          header: (name) => response.headers[name] as string | undefined,
        });
      });
    });
    request.end(body);
  });
}
