// @ts-check
/**
 * Mutation testing, one scope at a time (MUTATE_SCOPE=domain|http|stores|events|data). Run it as
 * `npm run mutate`, which loads tsx so this file can import the scopes. Each scope runs only the
 * tests meant to hold that code: pure decisions are held by their unit tables, the data layer by
 * DynamoDB Local, so a mutant is tried against few tests.
 */
import { globSync, writeFileSync } from 'node:fs';
import { MUTATION_SCOPES } from './bench/support/mutation-scopes.js';

const name = process.env.MUTATE_SCOPE ?? 'domain';
const scope = MUTATION_SCOPES[name];
if (!scope) throw new Error(`MUTATE_SCOPE must be one of ${Object.keys(MUTATION_SCOPES).join(', ')}`);
process.env.MUTATION_TESTS = JSON.stringify(scope.tests);

// The checker's program: the scope's files and what they import, not all of lib/. Each mutant is a
// whole-program check, so its cost follows the program's size (lib/domain: 30 files of lib/'s 129).
// A mutant that breaks only the types of a module importing it is then left to the tests.
const tsconfigFile = `tsconfig.mutation.${name}.json`;
writeFileSync(
  tsconfigFile,
  `${JSON.stringify({ extends: './tsconfig.json', include: [], files: scope.mutate.flatMap((glob) => globSync(glob)) }, null, 2)}\n`,
);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  checkers: ['typescript'],
  tsconfigFile,
  // TypeScript 7's compiler (@typescript/native): a mutant's check takes a fraction of tsc 5's 2.1 s
  // (docs/decisions/mutation-run-time.md).
  typescriptChecker: { experimentalNativePreview: true },
  coverageAnalysis: 'perTest',
  mutate: scope.mutate,
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  reporters: ['progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  // Stryker gives half to checkers and half to test runners, and the checkers' share to runners once
  // checking ends. On 2 cores, 2 + 2 kept both busy where 1 + 1 left a runner waiting on DynamoDB
  // Local: lib/data's core part took 5.2 min against 6.2 (docs/decisions/mutation-run-time.md).
  concurrency: 4,
  timeoutMS: 30_000,
  // The first, covered run of a scope's tests may take longer than Stryker's default 5 minutes:
  // lib/data's parts did on this 2-core machine while other test runs shared it (load average 30).
  dryRunTimeoutMinutes: 20,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
