/** docs/benchmarks.md is generated: it must be exactly what the generator renders from the committed results. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCHMARKS_MARKDOWN, loadResults, renderBenchmarks } from '../../bench/support/report-markdown.js';
import { REPO_ROOT } from '../support/processes.js';

describe('docs/benchmarks.md', () => {
  it('equals the generator output for bench/results/*.json (run `npm run bench:report` after a benchmark)', () => {
    expect(readFileSync(BENCHMARKS_MARKDOWN, 'utf8')).toBe(renderBenchmarks(loadResults()));
  });

  it('`npm run bench:report` writes that page', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'bench-report-')), 'benchmarks.md');
    execFileSync('npm', ['run', '--silent', 'bench:report', '--', '--out', out], { cwd: REPO_ROOT, stdio: 'pipe' });
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(BENCHMARKS_MARKDOWN, 'utf8'));
  });

  it('shows every budget of every results file, and refuses a results file it has no section for', () => {
    const results = loadResults();
    const page = renderBenchmarks(results);
    for (const { checks } of Object.values(results))
      for (const check of checks) expect(page).toContain(check.name.replaceAll('|', '\\|'));
    const soak = results.soak!;
    expect(() => renderBenchmarks({ ...results, unknown: soak })).toThrow('bench/results/unknown.json');
  });
});
