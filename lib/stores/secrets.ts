/**
 * Reading one secret from Secrets Manager (GetSecretValue) without the Secrets Manager SDK client:
 * the three verifying functions read store credentials and nothing else there, and the client
 * weighs on every cold start of theirs, StoreKit 2 verifications included, which never read a
 * secret (docs/decisions/signed-get-secret-value.md). The request is the SDK's own: the AWS JSON 1.1 protocol, signed with SigV4 by the SDK's signer
 * (@smithy/signature-v4) with the credentials and hash of the function's DynamoDB client; the
 * endpoint follows AWS_ENDPOINT_URL_SECRETS_MANAGER as the SDK's does. Writing secrets is the
 * operator CLI's, with the SDK client (lib/data/store-settings.ts).
 */

import { SignatureV4 } from '@smithy/signature-v4';
import { config } from '../core/config.js';
import { httpSend } from '../core/http-client.js';
import { dynamodb } from '../data/client.js';

const TARGET = 'secretsmanager.GetSecretValue';

/** Secrets Manager refused the request (other than for a secret that does not exist). */
export class SecretsManagerError extends Error {
  constructor(
    readonly type: string,
    readonly status: number,
    message: string,
  ) {
    super(`Secrets Manager ${TARGET} answered ${status} ${type}: ${message}`);
  }
}

let signer: SignatureV4 | undefined;

/** Where GetSecretValue goes: the endpoint the SDK would take from the environment, else the region's. */
export function secretsManagerEndpoint(): URL {
  return new URL(
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER || `https://secretsmanager.${config.region}.amazonaws.com`,
  );
}

/** The secret's SecretString, or undefined when no secret has that name. */
export async function getSecretString(name: string): Promise<string | undefined> {
  const endpoint = secretsManagerEndpoint();
  signer ??= new SignatureV4({
    service: 'secretsmanager',
    region: config.region,
    credentials: dynamodb.config.credentials,
    sha256: dynamodb.config.sha256,
  });
  const body = JSON.stringify({ SecretId: name });
  const signed = await signer.sign({
    method: 'POST',
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    // Stryker disable next-line ObjectLiteral: SigV4 signs the host header, which carries the port
    ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
    // Stryker disable next-line StringLiteral: SigV4 signs an empty path as /
    path: '/',
    query: {},
    headers: {
      host: endpoint.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': TARGET,
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
  });
  const reply = await httpSend(endpoint.href, {
    method: 'POST',
    headers: signed.headers,
    body,
    timeoutMs: config.storeTimeoutMs,
  });
  const { status } = reply;
  const text = reply.text();
  let answer: { SecretString?: string; __type?: string; message?: string; Message?: string } = {};
  try {
    answer = JSON.parse(text);
  } catch {
    // A body that is not JSON (a proxy's error page): the status says enough.
  }
  if (status === 200) return answer.SecretString;
  // AWS JSON error types may carry their namespace: "com.amazonaws.secretsmanager#ResourceNotFoundException".
  const type = (answer.__type ?? 'UnknownError').split('#').pop()!;
  if (type === 'ResourceNotFoundException') return undefined;
  throw new SecretsManagerError(type, status, answer.message ?? answer.Message ?? text.slice(0, 200));
}
