/** One structured JSON logger per process (Powertools). Never log headers, keys, receipts or bodies. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'subscriptions' });
