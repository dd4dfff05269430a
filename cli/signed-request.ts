/**
 * One AWS request signed with SigV4 by the SDK's own signer, with the region, credentials and
 * hash the SDK's clients take from the environment: what the operator CLI sends to the services
 * it has no client for (CloudFormation's DescribeStacks, S3's PutObject). Each service's endpoint
 * follows AWS_ENDPOINT_URL_<SERVICE>, then AWS_ENDPOINT_URL, as the SDK's do.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';

export interface SignedRequest {
  /** The signing name: `cloudformation`, `s3`. */
  service: string;
  /** AWS_ENDPOINT_URL_<id> names its endpoint (`CLOUDFORMATION`, `S3`). */
  endpointId: string;
  /** The endpoint when the service's default is not it (an S3 bucket's own host), unless one is configured. */
  defaultEndpoint?: (region: string) => URL;
  method: 'GET' | 'POST' | 'PUT';
  /** The path below the endpoint, already percent-encoded. */
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer>;
  timeoutMs?: number;
}

/** The configured endpoint of the service (AWS_ENDPOINT_URL_<id>, then AWS_ENDPOINT_URL), if any. */
export const configuredEndpoint = (endpointId: string): string | undefined =>
  process.env[`AWS_ENDPOINT_URL_${endpointId}`] || process.env.AWS_ENDPOINT_URL || undefined;

export async function sendSigned(request: SignedRequest): Promise<Response> {
  // A client only for what the SDK resolves from the environment: region, credentials, hash.
  const client = new DynamoDBClient({});
  try {
    const region = await client.config.region();
    const configured = configuredEndpoint(request.endpointId);
    const endpoint = configured
      ? new URL(configured)
      : (request.defaultEndpoint?.(region) ?? new URL(`https://${request.service}.${region}.amazonaws.com`));
    const path = `${endpoint.pathname.replace(/\/+$/, '')}${request.path}`;
    const signer = new SignatureV4({
      service: request.service,
      region,
      credentials: client.config.credentials,
      sha256: client.config.sha256,
      // S3 signs the path as sent; every other service encodes it once more.
      uriEscapePath: request.service !== 's3',
    });
    const signed = await signer.sign({
      method: request.method,
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
      path,
      query: {},
      headers: {
        host: endpoint.host,
        'content-length': String(Buffer.byteLength(request.body)),
        ...request.headers,
      },
      body: request.body,
    });
    const { host: _host, ...headers } = signed.headers;
    return await fetch(new URL(path, endpoint), {
      method: request.method,
      headers,
      body: request.body,
      signal: AbortSignal.timeout(request.timeoutMs ?? 10_000),
    });
  } finally {
    client.destroy();
  }
}
