import { afterEach, describe, expect, it, vi } from 'vitest';
import { Logger } from '../../lib/core/logger.js';

/** What the logger wrote, by stream, as parsed JSON lines. */
function capture() {
  const lines = { stdout: [] as Record<string, unknown>[], stderr: [] as Record<string, unknown>[] };
  for (const name of ['stdout', 'stderr'] as const) {
    vi.spyOn(process[name], 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines[name].push(JSON.parse(String(chunk)));
      return true;
    });
  }
  return lines;
}

describe('logger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env._X_AMZN_TRACE_ID;
  });

  it('writes one JSON line per entry with level, message, timestamp, service, the appended keys and the fields', () => {
    const lines = capture();
    const logger = new Logger('svc', 'INFO');
    logger.appendKeys({ request_id: 'r-1' });
    logger.info('hello', { count: 2 });
    logger.removeKeys(['request_id']);
    logger.info('bye');
    expect(lines.stdout).toEqual([
      {
        level: 'INFO',
        message: 'hello',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        service: 'svc',
        request_id: 'r-1',
        count: 2,
      },
      { level: 'INFO', message: 'bye', timestamp: expect.any(String), service: 'svc' },
    ]);
  });

  it('writes warnings and errors to stderr, and nothing below its level', () => {
    const lines = capture();
    const logger = new Logger('svc', 'WARN');
    logger.debug('no');
    logger.info('no');
    logger.warn('careful');
    logger.error('failed');
    logger.setLogLevel('SILENT');
    logger.error('silenced');
    expect(lines.stdout).toEqual([]);
    expect(lines.stderr.map((line) => line.message)).toEqual(['careful', 'failed']);
  });

  it('takes its level from the environment, and the X-Ray trace id from Lambda', () => {
    const lines = capture();
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'error');
    process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
    const logger = new Logger('svc');
    logger.info('no');
    logger.error('yes');
    vi.unstubAllEnvs();
    expect(lines.stderr).toEqual([
      expect.objectContaining({ message: 'yes', xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793' }),
    ]);
  });

  it("Lambda's log-level control wins over POWERTOOLS_LOG_LEVEL, its FATAL read as CRITICAL", () => {
    const lines = capture();
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'debug');
    vi.stubEnv('AWS_LAMBDA_LOG_LEVEL', 'WARN');
    const warnings = new Logger('svc');
    warnings.info('no');
    warnings.warn('yes');
    vi.stubEnv('AWS_LAMBDA_LOG_LEVEL', 'FATAL');
    new Logger('svc').error('no: below CRITICAL');
    vi.unstubAllEnvs();
    expect([...lines.stdout, ...lines.stderr].map((line) => line.message)).toEqual(['yes']);
  });

  it('redacts what reaches a line anyway', () => {
    const lines = capture();
    new Logger('svc', 'INFO').info('key sk_abcdefghijklmnopqrstuvwxyz0123456789', {
      receipt_data: 'abc',
      note: 'jane@example.com',
    });
    expect(lines.stdout[0]).toMatchObject({
      message: 'key sk_[REDACTED]',
      receipt_data: '[REDACTED]',
      note: '[REDACTED EMAIL]',
    });
  });
});
