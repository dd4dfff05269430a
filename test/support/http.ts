/**
 * Starts the local gateway in the test worker and speaks HTTP to it, as a client would. Every
 * answer is checked against the OpenAPI document (test/support/contract.ts).
 *
 * The gateway runs without the stream pollers, so it also stands in for the aggregator: before a
 * read of the list (its totals) or of the revenue figures, `request` settles the counters with
 * every write so far (test/support/counters.ts). How long they trail the writes when the pollers
 * do it is test/integration/aggregator.test.ts's subject.
 */
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { type LocalGateway, startGateway } from '../../local/gateway.js';
import { PAYWALLS_PATH, paywallsDir } from '../../local/paywall-files.js';
import { assertContract, contractFetch } from './contract.js';
import { settleCounters } from './counters.js';

/** Reads that answer from what the aggregator writes: the list counts, the revenue and metrics counters, a subscription's history. */
const READS_COUNTERS = /^\/v1\/subscriptions((\/revenue|\/metrics)?\/?|\/[^/]+\/history)$/;

const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  bearer?: string;
  headers?: Record<string, string>;
  /** A list is sent as the parameter repeated (`?id=a&id=b`). */
  query?: Record<string, string | number | readonly string[]>;
  body?: unknown;
  rawBody?: string;
}

/** A response as bytes on the wire decoded as text: nothing assumed about its shape. */
export interface RawResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: Buffer;
}

export interface RawRequestOptions {
  headers?: Record<string, string>;
  /** Sent byte for byte (invalid UTF-8 included), whatever the method; fetch allows neither. */
  body?: Uint8Array | string;
}

/**
 * `console`: also serve the operator console at /console; `apiReference`: /docs and /openapi.json;
 * `paywalls`: the bundles of PAYWALLS_DIR at /paywalls, which PAYWALLS_BASE_URL then names (as `npm start` does).
 */
export function useGateway(options: { console?: boolean; apiReference?: boolean; paywalls?: boolean } = {}) {
  let gateway: LocalGateway;
  // Keep-alive: fuzzing sends thousands of requests, one connection is enough.
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  beforeAll(async () => {
    // The suite shares two cores with DynamoDB Local, far slower than DynamoDB: a 1,000-event batch
    // that takes 2.5 s alone took over the 10 s function timeout in a full run. The timeout itself
    // is tested in test/e2e/routing.test.ts with its own gateway.
    gateway = await startGateway({
      port: 0,
      functionTimeoutMs: 60_000,
      console: options.console ?? false,
      apiReference: options.apiReference ?? false,
      ...(options.paywalls ? { paywallsDir: paywallsDir() } : {}),
    });
    if (options.paywalls) process.env.PAYWALLS_BASE_URL = `${gateway.url}${PAYWALLS_PATH}`;
  });
  afterAll(async () => {
    agent.destroy();
    await gateway?.close();
  });

  /** Sends exactly these headers and bytes; `path` is sent as is (already percent-encoded where needed). */
  function send(method: string, path: string, options: RawRequestOptions = {}): Promise<RawResult> {
    const { hostname, port } = new URL(gateway.url);
    // Node frames a GET body only when told its length (it never sends GET chunked).
    const length = options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) };
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { agent, hostname, port, method, path, headers: { ...options.headers, ...length } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const result = {
              status: response.statusCode ?? 0,
              headers: response.headers,
              text: bytes.toString('utf8'),
              bytes,
            };
            try {
              // Bundles are CloudFront's files in AWS, not an API's: the document does not describe them.
              if (!path.startsWith(`${PAYWALLS_PATH}/`))
                assertContract(method, path, { ...result, header: (name) => headerValue(response.headers[name]) });
              resolve(result);
            } catch (error) {
              reject(error);
            }
          });
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(options.body);
    });
  }

  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const url = new URL(path, gateway.url);
    for (const [name, value] of Object.entries(options.query ?? {}))
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (method === 'GET' && READS_COUNTERS.test(url.pathname)) await settleCounters();
    const response = await contractFetch(url, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  return { request, send, url: () => gateway.url };
}
