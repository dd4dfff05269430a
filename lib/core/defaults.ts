/** Defaults of the operator interface (DESIGN.md). Side-effect free: importing it reads no environment. */
export const DEFAULT_TABLE_NAME = 'subscriptions';
export const DEFAULT_DYNAMODB_PORT = 8000;
export const DEFAULT_PORT = 3000;
/** How long the one-minute jobs (expiry sweeper, webhook retries) may run: their Lambda timeout, and the local scheduler's. */
export const SCHEDULED_JOB_TIMEOUT_SECONDS = 300;
