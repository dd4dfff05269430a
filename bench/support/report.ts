/** Prints a benchmark's figures and writes them to bench/results/<name>.json. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface BudgetCheck {
  name: string;
  value: number;
  budget: string;
  pass: boolean;
}

/** The middle value (the upper one of an even count): what the benchmarks report of repeated runs. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A figure to `digits` decimals, as the results files hold them. */
export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

export function writeResults(name: string, figures: Record<string, unknown>, checks: BudgetCheck[]): void {
  const dir = resolve(import.meta.dirname, '../results');
  mkdirSync(dir, { recursive: true });
  const file = resolve(dir, `${name}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ benchmark: name, measured_at: new Date().toISOString(), node: process.version, figures, checks }, null, 2)}\n`,
  );
  for (const check of checks)
    console.log(`${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${check.value} (budget ${check.budget})`);
  console.log(`results written to ${file}`);
}
