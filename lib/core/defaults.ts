/** Defaults of the operator interface (DESIGN.md). Side-effect free: importing it reads no environment. */
export const DEFAULT_TABLE_NAME = 'subscriptions';
export const DEFAULT_DYNAMODB_PORT = 8000;
export const DEFAULT_PORT = 3000;
