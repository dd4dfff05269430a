/**
 * Everything AWS would run, in this process: the gateway (API Gateway + one function per handler module),
 * the stream poller (event source mapping -> publisher), the bus (EventBridge rule -> webhook
 * deliverer) and the scheduler (expiry sweeper, webhook retries). `npm start` and the end-to-end
 * tests both start it this way, against whatever DynamoDB the environment names.
 */

import { logger } from '../lib/core/logger.js';
import { dynamodb } from '../lib/data/client.js';
import { useLocalBus } from '../lib/events/bus.js';
import { dispatchToRuleTargets } from './event-bus.js';
import { type LocalGateway, startGateway } from './gateway.js';
import { startScheduler } from './scheduler.js';
import { AGGREGATOR, startStreamPoller } from './stream-poller.js';

const AGGREGATOR_POLL_MS = 100;

export interface LocalRuntime {
  gateway: LocalGateway;
  stop(): Promise<void>;
}

export async function startLocalRuntime(options: {
  port: number;
  host?: string;
  sweepIntervalSeconds: number;
  /** Serve the API reference (/openapi.json, /docs) beside the APIs. */
  apiReference?: boolean;
  /** Serve the operator console at /console. */
  console?: boolean;
  /** Serve the paywall bundles of this folder at /paywalls. */
  paywallsDir?: string;
  /** Each function's timeout; the stack's by default. Tests on a loaded machine give more. */
  functionTimeoutMs?: number;
}): Promise<LocalRuntime> {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('the local runtime needs DYNAMODB_ENDPOINT');
  useLocalBus(dispatchToRuleTargets);
  const report = (what: string) => (error: unknown) =>
    logger.error(`${what} failed`, { error: (error as Error).message });
  const gateway = await startGateway({
    port: options.port,
    ...(options.host ? { host: options.host } : {}),
    apiReference: options.apiReference ?? false,
    console: options.console ?? false,
    ...(options.paywallsDir ? { paywallsDir: options.paywallsDir } : {}),
    ...(options.functionTimeoutMs ? { functionTimeoutMs: options.functionTimeoutMs } : {}),
  });
  const poller = await startStreamPoller({ client: dynamodb, endpoint, onError: report('stream poller') });
  // Polled often: the list totals and revenue figures trail the writes by this poller's delay.
  const aggregator = await startStreamPoller({
    client: dynamodb,
    endpoint,
    intervalMs: AGGREGATOR_POLL_MS,
    consumer: AGGREGATOR,
    onError: report('stream aggregator'),
  });
  const scheduler = startScheduler(options.sweepIntervalSeconds, report('scheduled job'));
  return {
    gateway,
    async stop() {
      await gateway.close();
      await scheduler.stop();
      await poller.stop();
      await aggregator.stop();
      useLocalBus(undefined);
    },
  };
}
