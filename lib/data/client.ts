import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../core/config.js';

/** DynamoDB Local accepts any credentials; give it some when the environment has none. */
const localCredentials =
  config.dynamodbEndpoint && !process.env.AWS_ACCESS_KEY_ID
    ? { accessKeyId: 'local', secretAccessKey: 'local' }
    : undefined;

/**
 * The SDK's default logger (NoOpLogger) discards everything, but the SDK builds what it would log
 * first: after every call, its input and output walked against the operation's schema to mask
 * sensitive fields (the logger middleware calls `logger?.info?.({ input: filter(input), … })`).
 * Without `info` and `error` that walk is skipped; the SDK calls only `debug` and `warn` unchecked.
 */
const silentSdkLogger = { debug() {}, warn() {} } as unknown as DynamoDBClientConfig['logger'];

/** Created once per process (module scope), reused by every invocation of a warm function. */
export const dynamodb = new DynamoDBClient({
  region: config.region,
  logger: silentSdkLogger,
  ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {}),
  ...(localCredentials ? { credentials: localCredentials } : {}),
});

export const ddb = DynamoDBDocumentClient.from(dynamodb, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

// Fail at cold start of any function that uses the table, not on its first request.
if (!config.tableName) throw new Error('TABLE_NAME is not set');
export const tableName: string = config.tableName;

/** A conditional write whose condition did not hold (the item was not as expected): not a failure of the store. */
export const isConditionFailure = (error: unknown): boolean =>
  (error as Error | undefined)?.name === 'ConditionalCheckFailedException';

/** One item of a TransactWriteItems request. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
