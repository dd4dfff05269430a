/**
 * The run's count of hostile-input cases: each fuzzing test file (one per API, in parallel
 * workers) records its count; this global setup prints the sum once every file has finished.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ApiName } from '../../lib/http/envelopes.js';

const DIR = resolve(import.meta.dirname, '../../.test-results/hostile-input');

interface Tally {
  api: ApiName;
  cases: number;
  seed: number;
}

export async function recordTally(api: ApiName, cases: number, seed: number): Promise<void> {
  await mkdir(DIR, { recursive: true });
  await writeFile(resolve(DIR, `${api}.json`), JSON.stringify({ api, cases, seed } satisfies Tally));
}

export default async function setup() {
  await rm(DIR, { recursive: true, force: true });
  return async () => {
    const files = await readdir(DIR).catch(() => [] as string[]);
    const tallies = await Promise.all(
      files.map(async (file) => JSON.parse(await readFile(resolve(DIR, file), 'utf8')) as Tally),
    );
    if (tallies.length === 0) return;
    const total = tallies.reduce((sum, t) => sum + t.cases, 0);
    console.log(
      `hostile input: ${tallies.map((t) => `${t.cases} cases against the ${t.api} API (seed ${t.seed})`).join(', ')}; ${total} in all`,
    );
  };
}
