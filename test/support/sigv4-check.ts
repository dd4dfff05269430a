/**
 * What every AWS stand-in of the tests checks first: the request's SigV4 signature, signed again
 * with the credentials the stand-in expects over the headers the request says it signed.
 */
import type { IncomingMessage } from 'node:http';
import type { SignatureV4 } from '@smithy/signature-v4';
import { single } from './secrets-manager-standin.js';

/** Whether the request carries the signature `signer` makes of it. */
export async function signedAsExpected(
  signer: SignatureV4,
  request: IncomingMessage,
  body: string | Buffer,
): Promise<boolean> {
  const authorization = single(request.headers.authorization);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const amzDate = single(request.headers['x-amz-date']);
  const signingDate = new Date(amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const resigned = await signer.sign(
    {
      method: request.method ?? 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: request.url ?? '/',
      query: {},
      headers: Object.fromEntries(
        signedHeaders.filter((name) => name !== 'x-amz-date').map((name) => [name, single(request.headers[name])]),
      ),
      body,
    },
    { signingDate },
  );
  return authorization !== '' && resigned.headers.authorization === authorization;
}
