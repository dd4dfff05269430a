import { defineConfig } from 'vitest/config';

/**
 * The suites, one project each, every test file in exactly one:
 * unit (pure), integration (repositories against DynamoDB Local), e2e (HTTP through the local
 * gateway, the documented commands as processes) and cdk (template assertions). `npm test` runs
 * them all in one run; `vitest run --project unit` (`npm run test:unit`) one of them. The projects
 * inherit everything below; globalSetup runs once for the run, whichever projects it runs: it
 * starts one in-memory DynamoDB Local, and each test isolates itself with its own app.
 */
export const PROJECTS = {
  unit: 'test/unit/**/*.test.ts',
  integration: 'test/integration/**/*.test.ts',
  e2e: 'test/e2e/**/*.test.ts',
  cdk: 'test/cdk/**/*.test.ts',
} as const;

export default defineConfig({
  test: {
    projects: Object.entries(PROJECTS).map(([name, include]) => ({
      extends: true,
      test: { name, include: [include] },
    })),
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
