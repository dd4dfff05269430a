/**
 * `npm run bench`: runs every benchmark, one after another (they share the machine's two cores),
 * then prints one table of every budget with PASS/FAIL from bench/results/*.json and rewrites
 * docs/benchmarks.md from them.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BudgetCheck } from './support/report.js';
import { writeBenchmarksMarkdown } from './support/report-markdown.js';
import { benchArguments } from './support/usage.js';

benchArguments(`Usage: npm run bench

Runs the throughput, cost, scaling, cold-start, hot-path, hot-app and events benchmarks one after
another (their own settings apply), prints every budget with PASS or FAIL (mutation testing's from
its last report) and rewrites docs/benchmarks.md; exits 1 when a budget fails. No options.`);

const BENCHMARKS = ['throughput', 'cost-model', 'scaling', 'cold-start', 'hot-path', 'hot-app', 'events'];
const root = resolve(import.meta.dirname, '..');

const rows: (BudgetCheck & { benchmark: string })[] = [];
let failed = false;
for (const name of BENCHMARKS) {
  console.log(`\n=== ${name}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.ts`], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) failed = true;
  try {
    const results = JSON.parse(readFileSync(resolve(root, `bench/results/${name}.json`), 'utf8')) as {
      checks: BudgetCheck[];
    };
    rows.push(...results.checks.map((check) => ({ ...check, benchmark: name })));
  } catch {
    rows.push({
      benchmark: name,
      name: 'benchmark did not produce results',
      value: Number.NaN,
      budget: '-',
      pass: false,
    });
    failed = true;
  }
}

// Mutation testing takes too long to run here: its last report's scores join the table.
try {
  const mutation = JSON.parse(readFileSync(resolve(root, 'bench/results/mutation.json'), 'utf8')) as {
    checks: BudgetCheck[];
  };
  rows.push(...mutation.checks.map((check) => ({ ...check, benchmark: 'mutation (npm run mutate)' })));
} catch {
  rows.push({
    benchmark: 'mutation',
    name: 'no report: run npm run mutate',
    value: Number.NaN,
    budget: '-',
    pass: false,
  });
}

console.log('\n| benchmark | budget | value | limit | result |\n|---|---|---|---|---|');
for (const row of rows)
  console.log(`| ${row.benchmark} | ${row.name} | ${row.value} | ${row.budget} | ${row.pass ? 'PASS' : 'FAIL'} |`);
console.log(`\nwritten: ${writeBenchmarksMarkdown()}`);
process.exitCode = failed || rows.some((row) => !row.pass) ? 1 : 0;
