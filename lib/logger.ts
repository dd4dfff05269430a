/**
 * One structured JSON logger per process (Powertools). Never log headers, keys, receipts or
 * bodies on purpose; and whatever reaches a log line anyway (an error message echoing input)
 * is redacted by lib/redact.ts on the way out.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { redactLogValue } from './redact.js';

export const logger = new Logger({ serviceName: 'subscriptions', jsonReplacerFn: redactLogValue });
