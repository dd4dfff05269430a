import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/core/logger.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { apiEvent, captureLogEntries, lambdaContext as context } from '../support/lambda-events.js';

const event = (secretKey: string, requestId: string) =>
  apiEvent({ headers: { authorization: `Bearer ${secretKey}` }, requestId });

describe('unexpected failures', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp([]);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    logger.setLogLevel('SILENT');
  });

  it('a bug is a 500 INTERNAL_ERROR whose request id is in the body and in the structured log line, without internals', async () => {
    const entries = captureLogEntries('ERROR');
    const handler = subscriptionsEndpoint({}, async () => {
      throw new TypeError('cannot read properties of undefined (secret internals)');
    });
    const response = (await handler(event(app.secretKey, 'req-500'), context)) as APIGatewayProxyResult;
    vi.restoreAllMocks();

    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'Internal error', request_id: 'req-500' },
    });
    expect(response.body).not.toContain('secret internals');
    const logLine = entries.find((entry) => entry.request_id === 'req-500');
    expect(logLine).toMatchObject({ level: 'ERROR', code: 'INTERNAL_ERROR', error: { name: 'TypeError' } });
    expect(JSON.stringify(logLine)).not.toContain(app.secretKey);
  });

  it('redacts API keys, receipts, tokens and emails that an error message echoes from the log line', async () => {
    const entries = captureLogEntries('ERROR');
    const receipt = Buffer.from('a test-store receipt that must never be logged, '.repeat(4)).toString('base64');
    const jws = 'eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMCJ9.c2lnbmF0dXJlLWJ5dGVz';
    const handler = subscriptionsEndpoint({}, async () => {
      throw new Error(
        `store rejected ${receipt} / ${jws} for jane.doe@example.com with key ${app.secretKey} and ${app.sdkKey}`,
      );
    });
    const response = (await handler(event(app.secretKey, 'req-redact'), context)) as APIGatewayProxyResult;
    vi.restoreAllMocks();

    expect(response.statusCode).toBe(500);
    const logged = JSON.stringify(entries);
    expect(logged).toContain('req-redact');
    for (const secret of [app.secretKey, app.sdkKey, receipt, jws, 'jane.doe@example.com'])
      expect(logged).not.toContain(secret);
    expect(logged).toContain('[REDACTED BASE64]');
    expect(logged).toContain('[REDACTED EMAIL]');
  });

  /** A TransactWriteItems cancelled for these reasons, one per item, as the SDK reports it. */
  const cancelled = (...codes: string[]) =>
    Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: codes.map((Code) => ({ Code })),
    });

  it('a throttled, unreachable or conflicting database is a retryable 503 with Retry-After, not a 500', async () => {
    for (const failure of [
      Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }),
      // Another transaction held an item: the same request may commit when sent again.
      Object.assign(new Error('conflict'), { name: 'TransactionConflictException' }),
      cancelled('None', 'TransactionConflict'),
      cancelled('ThrottlingError', 'None'),
    ]) {
      const handler = subscriptionsEndpoint({}, async () => {
        throw failure;
      });
      const response = (await handler(event(app.secretKey, 'req-503'), context)) as APIGatewayProxyResult;
      expect(response.statusCode).toBe(503);
      expect(response.headers?.['Retry-After']).toBe('1');
      expect(JSON.parse(response.body).error).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        retryable: true,
        request_id: 'req-503',
      });
    }
  });

  it('a transaction cancelled by a failed condition is no outage: a 500, not a retryable 503', async () => {
    const handler = subscriptionsEndpoint({}, async () => {
      throw cancelled('None', 'ConditionalCheckFailed');
    });
    const response = (await handler(event(app.secretKey, 'req-condition'), context)) as APIGatewayProxyResult;
    expect(response.statusCode).toBe(500);
    expect(response.headers?.['Retry-After']).toBeUndefined();
    expect(JSON.parse(response.body).error).toMatchObject({ code: 'INTERNAL_ERROR', request_id: 'req-condition' });
  });
});
