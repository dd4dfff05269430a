/**
 * One structured JSON logger per process: one line of JSON per entry, with the field names of
 * Powertools' Logger (level, message, timestamp, service, xray_trace_id in Lambda), the keys
 * appended for the request, and the entry's own fields, at the level POWERTOOLS_LOG_LEVEL (or
 * Lambda's log-level control, AWS_LAMBDA_LOG_LEVEL) sets: what we used of Powertools' Logger,
 * without its weight in every bundle (docs/decisions/logger.md).
 *
 * Never log headers, keys, receipts or bodies on purpose; and whatever reaches a log line anyway
 * (an error message echoing input) is redacted by lib/core/redact.ts on the way out.
 */
import { redactLogValue } from './redact.js';

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A level name as the environment gives it; Lambda's log-level control says FATAL where Powertools says CRITICAL. */
const levelFrom = (value: string | undefined): LogLevel | undefined => {
  const name = value?.toUpperCase() === 'FATAL' ? 'CRITICAL' : value?.toUpperCase();
  return LOG_LEVELS.find((level) => level === name);
};

/** The X-Ray trace of the current invocation (`Root=1-...;Parent=...;Sampled=1` in Lambda's environment). */
const traceId = (): string | undefined => /Root=([^;]+)/.exec(process.env._X_AMZN_TRACE_ID ?? '')?.[1];

export class Logger {
  #threshold: number;
  readonly #keys: Record<string, unknown> = {};

  constructor(
    private readonly service: string,
    level: LogLevel = levelFrom(process.env.AWS_LAMBDA_LOG_LEVEL) ??
      levelFrom(process.env.POWERTOOLS_LOG_LEVEL) ??
      'INFO',
  ) {
    this.#threshold = LOG_LEVELS.indexOf(level);
  }

  setLogLevel(level: LogLevel): void {
    this.#threshold = LOG_LEVELS.indexOf(level);
  }

  /** Keys on every following entry (the request id and route while a request is served). */
  appendKeys(keys: Record<string, unknown>): void {
    Object.assign(this.#keys, keys);
  }

  removeKeys(names: string[]): void {
    for (const name of names) delete this.#keys[name];
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.#write('DEBUG', message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.#write('INFO', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.#write('WARN', message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.#write('ERROR', message, fields);
  }

  #write(level: LogLevel, message: string, fields: Record<string, unknown> | undefined): void {
    if (LOG_LEVELS.indexOf(level) < this.#threshold) return;
    const trace = traceId();
    const entry = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.service,
      ...(trace ? { xray_trace_id: trace } : {}),
      ...this.#keys,
      ...fields,
    };
    // Warnings and errors on stderr, like console.warn/console.error (Lambda sends both to CloudWatch).
    (LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf('WARN') ? process.stderr : process.stdout).write(
      `${JSON.stringify(entry, redactLogValue)}\n`,
    );
  }
}

export const logger = new Logger('subscriptions');
