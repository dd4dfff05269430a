/**
 * `npm run mutate [-- scope ...] [--force] [--ignore-static]`: StrykerJS over lib/, one scope at a time (bench/support/
 * mutation-scopes.ts), each against the tests that hold it. Writes Stryker's JSON and HTML reports
 * to reports/mutation/ (with the incremental files that let a rerun test only what changed), the
 * scores to bench/results/mutation.json (read by `npm run bench`'s table and docs/benchmarks.md) and
 * docs/mutation.md: the score per folder and every mutant that survives or is ignored, with why.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { byFolder, type MutationScopeResult, mutationMarkdown, scopeResult } from './support/mutation-report.js';
import { MUTATION_NAMES, MUTATION_SCOPES, scopesNamed } from './support/mutation-scopes.js';
import { writeResults } from './support/report.js';
import { writeBenchmarksMarkdown } from './support/report-markdown.js';

const root = resolve(import.meta.dirname, '..');
const resultsFile = resolve(root, 'bench/results/mutation.json');

// --force: test every mutant again, not only those the incremental file cannot vouch for (it keeps
// a survivor's result while no test that covered it changed, even when a new test would kill it).
const force = process.argv.includes('--force');
// --ignore-static: do not run the static mutants no test covers (code that only runs while a module
// loads: tables, constants), each of which would run every test of the scope. Static mutants that a
// test also reaches still run against that test. In lib/stores Stryker found 499 static mutants,
// estimated at two thirds of the time; 19 were left out. The report counts them as not run; a later
// run without the flag runs them.
const ignoreStatic = process.argv.includes('--ignore-static');
const FLAGS = ['--force', '--ignore-static'];
const requested = process.argv.slice(2).filter((arg) => !FLAGS.includes(arg));
const unknown = requested.filter((name) => scopesNamed(name).length === 0);
if (unknown.length > 0) {
  console.error(`unknown scope ${unknown.join(', ')}; scopes: ${MUTATION_NAMES.join(', ')}`);
  process.exit(2);
}
const scopes = requested.length > 0 ? [...new Set(requested.flatMap(scopesNamed))] : Object.keys(MUTATION_SCOPES);

// Scopes not run this time keep their last figures.
const previous: Record<string, MutationScopeResult> = existsSync(resultsFile)
  ? JSON.parse(readFileSync(resultsFile, 'utf8')).figures.scopes
  : {};
const results: Record<string, MutationScopeResult> = { ...previous };

let failed = false;
for (const name of scopes) {
  console.log(`\n=== mutation testing: lib/${name} (${MUTATION_SCOPES[name]!.tests.length} test globs)`);
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      resolve(root, 'node_modules/@stryker-mutator/core/bin/stryker.js'),
      'run',
      'stryker.config.mjs',
      ...(force ? ['--force'] : []),
      ...(ignoreStatic ? ['--ignoreStatic'] : []),
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, MUTATE_SCOPE: name } },
  );
  if (run.status !== 0) {
    console.error(`Stryker failed on scope ${name} (exit ${run.status})`);
    failed = true;
    continue;
  }
  const report = JSON.parse(readFileSync(resolve(root, `reports/mutation/${name}.json`), 'utf8'));
  const { folder, goal } = MUTATION_SCOPES[name]!;
  const seconds = Math.round((Date.now() - started) / 1000);
  results[name] = { ...(folder ? { folder } : {}), ...scopeResult(report, goal, seconds) };
}

// Figures kept per scope (a part run alone keeps its siblings' figures), checked per folder.
const ordered = Object.keys(MUTATION_SCOPES).filter((name) => results[name]);
const scopeFigures = Object.fromEntries(ordered.map((name) => [name, results[name]!]));
const folders = byFolder(scopeFigures);
writeResults(
  'mutation',
  { scopes: scopeFigures },
  Object.keys(folders).map((name) => {
    const result = folders[name]!;
    return {
      name: `lib/${name} mutation score (%)`,
      value: result.score,
      budget: `>= ${result.goal}`,
      pass: result.score >= result.goal,
    };
  }),
);
writeFileSync(resolve(root, 'docs/mutation.md'), mutationMarkdown(scopeFigures));
console.log(`docs/mutation.md written; ${writeBenchmarksMarkdown()} rewritten`);
if (failed) process.exitCode = 1;
