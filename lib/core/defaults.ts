/** Defaults of the operator interface (DESIGN.md). Side-effect free: importing it reads no environment. */
export const DEFAULT_TABLE_NAME = 'subscriptions';
export const DEFAULT_DYNAMODB_PORT = 8000;
export const DEFAULT_PORT = 3000;
/** The deployed stack's name unless `cdk deploy -c stackName=…` chose another (STACK_NAME for the CLI). */
export const DEFAULT_STACK_NAME = 'SubscriptionBackend';
/** How long the one-minute jobs (expiry sweeper, webhook retries) may run: their Lambda timeout, and the local scheduler's. */
export const SCHEDULED_JOB_TIMEOUT_SECONDS = 300;
