import { defineConfig } from 'vitest/config';

/**
 * One run for all suites: unit (pure), integration (repositories against DynamoDB Local),
 * e2e (HTTP through the local gateway) and cdk (template assertions). globalSetup starts one
 * in-memory DynamoDB Local for the whole run; each test isolates itself with its own app.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // hostile-tally prints the number of fuzzed cases of the run, summed over its test files.
    globalSetup: ['test/support/global-setup.ts', 'test/support/hostile-tally.ts'],
    setupFiles: ['test/support/env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: DynamoDB Local is the bottleneck, so two workers are plenty.
    maxWorkers: 2,
    // The JSON report feeds the plain "N passed, N failed" line that .ci/run prints.
    reporters: ['default', ['json', { outputFile: '.test-results/vitest.json' }]],
  },
});
