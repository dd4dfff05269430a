/**
 * Local stand-ins for what the functions call besides DynamoDB, so their benchmarked first
 * request runs to the end as it does in AWS: EventBridge PutEvents (the SDK is pointed here with
 * AWS_ENDPOINT_URL_EVENTBRIDGE), Secrets Manager GetSecretValue (AWS_ENDPOINT_URL_SECRETS_MANAGER:
 * the verifying functions read an app's store settings there) and an app's webhook endpoint
 * (paths under /webhook; under /webhook/flaky the first attempt of each webhook-id fails with a
 * 500, so a retry is due).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubEndpoints {
  url: string;
  /** Requests served so far, by kind. */
  counts: { putEvents: number; getSecretValue: number; webhooks: number };
  /** SecretString by secret name, answered by GetSecretValue. */
  secrets: Map<string, string>;
  close(): Promise<void>;
}

export async function startStubEndpoints(): Promise<StubEndpoints> {
  const counts = { putEvents: 0, getSecretValue: 0, webhooks: 0 };
  const secrets = new Map<string, string>();
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
      if (request.headers['x-amz-target'] === 'secretsmanager.GetSecretValue') {
        counts.getSecretValue += 1;
        const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string };
        const secret = secrets.get(SecretId);
        const [status, body] = secret === undefined
          ? [400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }]
          : [200, { ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${SecretId}`, Name: SecretId, SecretString: secret, VersionId: randomUUID(), VersionStages: ['AWSCURRENT'], CreatedDate: Date.now() / 1000 }];
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
        response.end(JSON.stringify(body));
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
    secrets,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
