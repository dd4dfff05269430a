/**
 * Local stand-ins for what the event functions call besides DynamoDB, so their benchmarked first
 * request runs to the end: EventBridge PutEvents (the SDK is pointed here with
 * AWS_ENDPOINT_URL_EVENTBRIDGE) and an app's webhook endpoint (paths under /webhook; under
 * /webhook/flaky the first attempt of each webhook-id fails with a 500, so a retry is due).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubEndpoints {
  url: string;
  /** Requests served so far, by kind. */
  counts: { putEvents: number; webhooks: number };
  close(): Promise<void>;
}

export async function startStubEndpoints(): Promise<StubEndpoints> {
  const counts = { putEvents: 0, webhooks: 0 };
  const seenWebhookIds = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.headers['x-amz-target'] === 'AWSEvents.PutEvents') {
        counts.putEvents += 1;
        const { Entries = [] } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries?: unknown[] };
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
        response.end(JSON.stringify({ FailedEntryCount: 0, Entries: Entries.map(() => ({ EventId: randomUUID() })) }));
        return;
      }
      counts.webhooks += 1;
      const id = String(request.headers['webhook-id'] ?? '');
      const fail = request.url?.startsWith('/webhook/flaky') && !seenWebhookIds.has(id);
      seenWebhookIds.add(id);
      response.writeHead(fail ? 500 : 204);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
