/**
 * GetSecretValue as lib/stores/secrets.ts sends it, against servers of this file's: what Secrets
 * Manager's error answers become, that an https endpoint is never spoken to in plain text, and a
 * connection refused. (Reading secrets through a stand-in that checks the SigV4 signature is
 * test/integration/store-settings.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../lib/core/config.js';
import { getSecretString, SecretsManagerError, secretsManagerEndpoint } from '../../lib/stores/secrets.js';
import { freePort } from '../support/ports.js';
import { waitUntil } from '../support/webhook-receiver.js';

describe('GetSecretValue over the wire', () => {
  let server: Server;
  let url = '';
  let answer: { status: number; body: string } = { status: 200, body: '{}' };
  let received: { headers: IncomingHttpHeaders; body: string; path: string | undefined } | undefined;
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received = { headers: request.headers, body, path: request.url };
        response.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.1' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = url;
  });
  afterEach(() => {
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = url;
    received = undefined;
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    await new Promise((resolve) => server?.close(resolve));
  });

  const refusal = async (status: number, body: string) => {
    answer = { status, body };
    const error = await getSecretString('app/secret').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SecretsManagerError);
    const { type, status: answered, message } = error as SecretsManagerError;
    return { type, status: answered, message };
  };

  it('sends the AWS JSON 1.1 request to the endpoint root and reads the secret string', async () => {
    answer = { status: 200, body: JSON.stringify({ Name: 'app/secret', SecretString: 's3cr3t' }) };
    expect(await getSecretString('app/secret')).toBe('s3cr3t');
    expect(received).toMatchObject({
      path: '/',
      body: '{"SecretId":"app/secret"}',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
    });
  });

  it('a secret that does not exist is undefined, with or without the namespace in its type', async () => {
    for (const type of ['ResourceNotFoundException', 'com.amazonaws.secretsmanager#ResourceNotFoundException']) {
      answer = { status: 400, body: JSON.stringify({ __type: type, message: 'not found' }) };
      expect(await getSecretString('app/missing')).toBeUndefined();
    }
  });

  it("any other refusal is a SecretsManagerError naming the type without its namespace, the status and AWS's message", async () => {
    expect(
      await refusal(
        400,
        JSON.stringify({ __type: 'com.amazonaws.secretsmanager#AccessDeniedException', Message: 'no' }),
      ),
    ).toEqual({
      type: 'AccessDeniedException',
      status: 400,
      message: 'Secrets Manager secretsmanager.GetSecretValue answered 400 AccessDeniedException: no',
    });
    expect(await refusal(400, JSON.stringify({ __type: 'ThrottlingException', message: 'slow down' }))).toEqual({
      type: 'ThrottlingException',
      status: 400,
      message: 'Secrets Manager secretsmanager.GetSecretValue answered 400 ThrottlingException: slow down',
    });
  });

  it("an answer that is not JSON is UnknownError, quoting the answer's first 200 characters", async () => {
    const page = `<html>${'x'.repeat(300)}</html>`;
    expect(await refusal(502, page)).toEqual({
      type: 'UnknownError',
      status: 502,
      message: `Secrets Manager secretsmanager.GetSecretValue answered 502 UnknownError: ${page.slice(0, 200)}`,
    });
  });

  it('an https endpoint is spoken to over TLS: the client opens a TLS handshake there', async () => {
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/app-store-standin/${name}`, import.meta.url));
    const handshakes: string[] = [];
    const tlsServer = createTlsServer({ key: fixture('leaf.p8'), cert: fixture('leaf.pem') });
    // Its certificate is no CA's the client trusts: the handshake is refused, after it began.
    tlsServer.on('tlsClientError', (error: Error & { code?: string }) => handshakes.push(error.code ?? error.message));
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
      await expect(getSecretString('app/secret')).rejects.toThrow();
      await waitUntil(() => handshakes.length > 0, 5_000, 'the TLS handshake');
      expect(handshakes).toHaveLength(1);
    } finally {
      await new Promise((resolve) => tlsServer.close(resolve));
    }
  });

  it('an answer cut off before its end is the connection reset, not an answer', async () => {
    const cutting = createNetServer((socket) => {
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-1.1\r\ncontent-length: 100\r\n\r\n{"Secr',
        );
        setTimeout(() => socket.destroy(), 20);
      });
    });
    await new Promise<void>((resolve) => cutting.listen(0, '127.0.0.1', resolve));
    try {
      process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = `http://127.0.0.1:${(cutting.address() as AddressInfo).port}`;
      await expect(getSecretString('app/secret')).rejects.toMatchObject({ code: 'ECONNRESET', message: 'aborted' });
    } finally {
      await new Promise((resolve) => cutting.close(resolve));
    }
  });

  it("without an endpoint in the environment, the region's own Secrets Manager over https", () => {
    expect(secretsManagerEndpoint().href).toBe(`${url}/`);
    delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    expect(config.region).toBe('us-east-1');
    expect(secretsManagerEndpoint().href).toBe('https://secretsmanager.us-east-1.amazonaws.com/');
  });

  it('a connection refused is an error, not an answer', async () => {
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = `http://127.0.0.1:${await freePort()}`;
    await expect(getSecretString('app/secret')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
