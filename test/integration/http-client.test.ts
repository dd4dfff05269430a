/** The store APIs' HTTP client (lib/core/http-client.ts) against a local server. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpSend } from '../../lib/core/http-client.js';

describe('httpSend (node:http instead of fetch)', () => {
  let server: Server;
  let base: string;
  const seen: { method?: string; headers: Record<string, unknown>; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method, headers: request.headers, body });
        if (request.url === '/json')
          return response.writeHead(201, { 'content-type': 'application/json' }).end('{"a":1}');
        if (request.url === '/redirect') return response.writeHead(302, { location: '/json' }).end();
        if (request.url === '/huge') return response.writeHead(200).end(Buffer.alloc(1_048_577, 'x'));
        if (request.url === '/hang') return; // never answers
        response.writeHead(404).end('not json');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('sends the method, headers and body, and reads a JSON answer', async () => {
    const answer = await httpSend(`${base}/json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"q":true}',
      timeoutMs: 2000,
    });
    expect({ status: answer.status, ok: answer.ok, body: await answer.json() }).toEqual({
      status: 201,
      ok: true,
      body: { a: 1 },
    });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: '{"q":true}', headers: { 'content-length': '10' } });
  });

  it('any status is an answer; a redirect is not followed; a body that is not JSON rejects json()', async () => {
    const missing = await httpSend(`${base}/nothing`, { timeoutMs: 2000 });
    expect([missing.status, missing.ok]).toEqual([404, false]);
    await expect(missing.json()).rejects.toThrow(SyntaxError);
    expect((await httpSend(`${base}/redirect`, { timeoutMs: 2000 })).status).toBe(302);
  });

  it('gives up at the timeout (TimeoutError), on an answer over 1 MB, and on other protocols', async () => {
    await expect(httpSend(`${base}/hang`, { timeoutMs: 200 })).rejects.toMatchObject({ name: 'TimeoutError' });
    await expect(httpSend(`${base}/huge`, { timeoutMs: 5000 })).rejects.toThrow('the answer exceeds 1048576 bytes');
    await expect(httpSend('ftp://127.0.0.1/x', { timeoutMs: 200 })).rejects.toThrow('unsupported URL protocol ftp:');
  });
});
