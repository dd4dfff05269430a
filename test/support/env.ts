/** Runs in every test worker before the test files import lib/: points the data layer at the test table. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
process.env.TABLE_NAME = inject('tableName');
// The operator CLI looks for a running npm start under DATA_DIR: never the clone's own .data/.
process.env.DATA_DIR ??= mkdtempSync(join(tmpdir(), 'subs-test-data-'));
process.env.AWS_REGION = 'us-east-1';
// Revocation must take effect at once in tests; test/integration/unknown-key-cache.test.ts tests the cache.
process.env.KEY_CACHE_TTL_SECONDS = '0';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
// Webhook retries in seconds, not hours: 4 retries one second apart, then the dead letter.
process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS ??= '1,1,1,1';
process.env.WEBHOOK_TIMEOUT_MS ??= '2000';
process.env.STORE_TIMEOUT_MS ??= '2000';
// Tests send many requests per key; test/e2e/rate-limit.test.ts removes these to test the defaults.
process.env.RATE_LIMIT_STANDARD_PER_MINUTE ??= '1000000';
process.env.RATE_LIMIT_PREMIUM_PER_MINUTE ??= '1000000';
// The console's origin in AWS is its CloudFront URL; the tests' stands for it (test/e2e/cors.test.ts).
process.env.CONSOLE_ORIGINS ??= 'https://console.example.test';
