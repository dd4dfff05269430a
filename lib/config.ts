import { DEFAULT_TABLE_NAME } from './defaults.js';

/**
 * Runtime configuration, read once from the environment when a module first imports it.
 * In Lambda the CDK stack sets these; locally `npm start`, the CLI and the tests do.
 */
export interface Config {
  /** The single DynamoDB table. */
  tableName: string;
  /** Set for DynamoDB Local; unset in AWS. */
  dynamodbEndpoint: string | undefined;
  region: string;
  /** How long a verified API key stays cached in a warm function (0 disables the cache). */
  keyCacheTtlSeconds: number;
  /** Set in AWS Lambda; decides whether a missing TABLE_NAME is fatal. */
  inLambda: boolean;
}


function readNonNegativeInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const inLambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
  const tableName = env.TABLE_NAME ?? (inLambda ? undefined : DEFAULT_TABLE_NAME);
  // Fail at cold start, not on the first request that touches the table.
  if (!tableName) throw new Error('TABLE_NAME is not set');
  return {
    tableName,
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    keyCacheTtlSeconds: readNonNegativeInt(env, 'KEY_CACHE_TTL_SECONDS', 30),
    inLambda,
  };
}

export const config: Config = readConfig();
