/**
 * A local stand-in for Secrets Manager's GetSecretValue (AWS JSON 1.1 over HTTP): checks the
 * request's SigV4 signature by signing it again with the credentials it expects, and answers as
 * Secrets Manager does: the secret, or 400 ResourceNotFoundException, or 400 for a bad signature.
 * Also PutSecretValue and CreateSecret, as the operator CLI's SDK client sends them.
 */

import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { signedAsExpected } from './sigv4-check.js';

export interface SecretsManagerStandIn {
  url: string;
  secrets: Map<string, string>;
  /** Names asked for, in order. */
  requests: string[];
  /** Names written (PutSecretValue, CreateSecret), in order. */
  writes: string[];
  close(): Promise<void>;
}

const bytes = (data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

/** SHA-256 (keyed: HMAC) in the shape the SigV4 signer takes. */
export class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {}
}

export const single = (value: IncomingHttpHeaders[string]) => (Array.isArray(value) ? value[0] : value) ?? '';

export async function startSecretsManagerStandIn(
  credentials: { accessKeyId: string; secretAccessKey: string },
  region: string,
): Promise<SecretsManagerStandIn> {
  const signer = new SignatureV4({ service: 'secretsmanager', region, credentials, sha256: Sha256 });
  const secrets = new Map<string, string>();
  const requests: string[] = [];
  const writes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = (status: number, value: unknown) =>
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
      if (!(await signedAsExpected(signer, request, body))) {
        return answer(400, {
          __type: 'InvalidSignatureException',
          message: 'The request signature we calculated does not match the signature you provided.',
        });
      }
      const target = single(request.headers['x-amz-target']);
      const notFound = () =>
        answer(400, {
          __type: 'com.amazonaws.secretsmanager#ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret.",
        });
      // The operator CLI's writes (the SDK client's): a new version of a secret, or a new secret.
      if (target === 'secretsmanager.PutSecretValue' || target === 'secretsmanager.CreateSecret') {
        const input = JSON.parse(body) as { SecretId?: string; Name?: string; SecretString: string };
        const name = (input.SecretId ?? input.Name)!;
        writes.push(name);
        if (target === 'secretsmanager.PutSecretValue' && !secrets.has(name)) return notFound();
        if (target === 'secretsmanager.CreateSecret' && secrets.has(name))
          return answer(400, { __type: 'ResourceExistsException', message: `${name} already exists` });
        secrets.set(name, input.SecretString);
        const arn = `arn:aws:secretsmanager:${region}:000000000000:secret:${name}-AbCdEf`;
        return answer(200, { ARN: arn, Name: name, VersionId: '00000000-0000-4000-8000-000000000000' });
      }
      if (target !== 'secretsmanager.GetSecretValue') return answer(400, { __type: 'UnknownOperationException' });
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      requests.push(SecretId);
      const secret = secrets.get(SecretId);
      if (secret === undefined) return notFound();
      answer(200, {
        ARN: `arn:aws:secretsmanager:${region}:000000000000:secret:${SecretId}`,
        Name: SecretId,
        SecretString: secret,
        VersionStages: ['AWSCURRENT'],
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    secrets,
    requests,
    writes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
