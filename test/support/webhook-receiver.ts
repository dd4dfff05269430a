/**
 * A webhook receiver for tests: verifies every request with the standardwebhooks library (as an
 * app's server would) and answers according to a script (e.g. fail the first 3 attempts).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  headers: IncomingHttpHeaders;
  payload: any;
  /** Whether the signature verified against the secret. */
  verified: boolean;
  answeredWith: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Successful (2xx-answered, verified) deliveries. */
  accepted(): ReceivedWebhook[];
  setSecret(secret: string): void;
  /** Status to answer for the nth request (0-based) of one webhook-id; default 204. */
  respond: (
    attemptOfId: number,
    id: string,
  ) => number | { status: number; headers?: Record<string, string>; delayMs?: number };
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let verifier: Webhook | undefined;
  const attemptsById = new Map<string, number>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    accepted: () => receiver.received.filter((r) => r.verified && r.answeredWith >= 200 && r.answeredWith < 300),
    setSecret: (secret) => {
      verifier = new Webhook(secret);
    },
    respond: () => 204,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      let verified = false;
      let payload: unknown;
      try {
        payload = verifier?.verify(body, request.headers as Record<string, string>);
        verified = verifier !== undefined;
      } catch {
        payload = JSON.parse(body);
      }
      const attempt = attemptsById.get(id) ?? 0;
      attemptsById.set(id, attempt + 1);
      const answer = receiver.respond(attempt, id);
      const { status, headers = {}, delayMs = 0 } = typeof answer === 'number' ? { status: answer } : answer;
      receiver.received.push({ id, headers: request.headers, payload, verified, answeredWith: status });
      setTimeout(() => response.writeHead(status, headers).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return receiver;
}

export async function waitUntil(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
