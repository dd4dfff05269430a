/**
 * A local stand-in for S3's PutObject, path-style (`PUT /<bucket>/<key>`, as the SDK sends it to
 * an endpoint from AWS_ENDPOINT_URL_S3): checks the SigV4 signature by signing the request again
 * with the credentials it expects (S3's rules: the path signed as sent, the payload's SHA-256 in
 * x-amz-content-sha256 and matching the body), and answers as S3 does: 200 with an ETag, 404
 * NoSuchBucket, 403 SignatureDoesNotMatch or XAmzContentSHA256Mismatch (400).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256, single } from './secrets-manager-standin.js';
import { signedAsExpected } from './sigv4-check.js';

export interface StoredObject {
  body: Buffer;
  contentType: string;
  cacheControl: string;
}

export interface S3StandIn {
  url: string;
  /** `<bucket>/<key>` -> what was put. */
  objects: Map<string, StoredObject>;
  close(): Promise<void>;
}

export async function startS3StandIn(
  credentials: { accessKeyId: string; secretAccessKey: string },
  region: string,
  buckets: readonly string[],
): Promise<S3StandIn> {
  const signer = new SignatureV4({ service: 's3', region, credentials, sha256: Sha256, uriEscapePath: false });
  const objects = new Map<string, StoredObject>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      const error = (status: number, code: string, message: string) =>
        response
          .writeHead(status, { 'content-type': 'application/xml' })
          .end(
            `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
          );
      if (!(await signedAsExpected(signer, request, body)))
        return error(
          403,
          'SignatureDoesNotMatch',
          'The request signature we calculated does not match the signature you provided.',
        );
      if (single(request.headers['x-amz-content-sha256']) !== createHash('sha256').update(body).digest('hex'))
        return error(
          400,
          'XAmzContentSHA256Mismatch',
          "The provided 'x-amz-content-sha256' header does not match what was computed.",
        );
      if (request.method !== 'PUT')
        return error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
      const [, bucket, ...key] = (request.url ?? '/').split('/');
      if (!bucket || !buckets.includes(bucket))
        return error(404, 'NoSuchBucket', 'The specified bucket does not exist');
      objects.set(`${bucket}/${decodeURIComponent(key.join('/'))}`, {
        body,
        contentType: single(request.headers['content-type']),
        cacheControl: single(request.headers['cache-control']),
      });
      response.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objects,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
