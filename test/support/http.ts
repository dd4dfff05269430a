/** Starts the local gateway in the test worker and speaks HTTP to it, as a client would. */
import { afterAll, beforeAll } from 'vitest';
import { startGateway, type LocalGateway } from '../../lib/local/gateway.js';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  bearer?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number>;
  body?: unknown;
  rawBody?: string;
}

export function useGateway() {
  let gateway: LocalGateway;
  beforeAll(async () => {
    gateway = await startGateway({ port: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const url = new URL(path, gateway.url);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  return { request, url: () => gateway.url };
}
