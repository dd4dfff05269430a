import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

/**
 * The suite as Stryker runs it against each mutant: the test files of one scope (MUTATION_TESTS,
 * set by stryker.config.mjs). Never included: tests that measure or build bundles (an instrumented
 * bundle is larger by design), synthesize the CDK stack, or run the service in a child process,
 * where Stryker's active mutant does not reach.
 */
const include: string[] = JSON.parse(process.env.MUTATION_TESTS ?? '["test/unit/**/*.test.ts"]');

const TIERS = ['test/unit/', 'test/integration/', 'test/e2e/'];
const tierOf = (file: TestSpecification) => {
  const tier = TIERS.findIndex((folder) => file.moduleId.includes(folder));
  return tier === -1 ? TIERS.length : tier;
};

/**
 * Cheapest files first. Stryker stops a mutant's run at its first failing test (bail), so a mutant
 * that a unit table kills never pays for a suite that creates a table or starts the local runtime.
 * Vitest's own order is the opposite (last failed, then slowest first).
 */
class CheapestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const duration = (file: TestSpecification) => this.ctx.cache.getTestSpecificationResult(file)?.duration ?? 0;
    return [...files].sort(
      (a, b) => tierOf(a) - tierOf(b) || duration(a) - duration(b) || a.moduleId.localeCompare(b.moduleId),
    );
  }
}

// Spread, not mergeConfig: mergeConfig would append to the base's include list. One project, not
// the base's four: each of those would bring its own include.
const { projects: _projects, ...baseTest } = base.test!;
export default defineConfig({
  ...base,
  test: {
    ...baseTest,
    include,
    exclude: [
      '**/node_modules/**',
      'test/cdk/**',
      'test/integration/bundle*.test.ts',
      'test/integration/soak-smoke.test.ts',
      'test/e2e/quick-start.test.ts',
      'test/e2e/local-start.test.ts',
      'test/e2e/cli-commands.test.ts',
      'test/e2e/documented-commands.test.ts',
      'test/e2e/notifications-restart.test.ts',
    ],
    reporters: ['default'],
    sequence: { ...baseTest.sequence, sequencer: CheapestFirst },
    // Read by the few tests too heavy to run once per mutant (test/support/mutation.ts).
    env: { ...baseTest.env, MUTATION_RUN: '1' },
  },
});
