/** `npm run mutate`'s reading of Stryker's JSON report, and its refusal of an unknown scope. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mutationMarkdown, scopeResult } from '../../bench/support/mutation-report.js';

const ROOT = resolve(import.meta.dirname, '../..');

const mutant = (status: string, line: number, extra: Record<string, unknown> = {}) => ({
  mutatorName: 'EqualityOperator',
  replacement: 'a  >=\n b',
  location: { start: { line, column: 3 } },
  status,
  ...extra,
});

const REPORT = {
  files: {
    'lib/domain/b.ts': { mutants: [mutant('Killed', 1), mutant('Survived', 2), mutant('CompileError', 3)] },
    'lib/domain/a.ts': {
      mutants: [
        mutant('Killed', 1),
        mutant('Timeout', 2),
        mutant('NoCoverage', 3),
        mutant('Ignored', 4, { statusReason: 'the caller drops it' }),
      ],
    },
  },
};

describe('mutation report', () => {
  it('scores detected over detected and undetected, leaving out compile errors and ignored mutants', () => {
    expect(scopeResult(REPORT, 85, 61)).toEqual({
      goal: 85,
      score: 60,
      mutants: 7,
      killed: 2,
      timed_out: 1,
      survived: 1,
      no_coverage: 1,
      invalid: 1,
      ignored: 1,
      seconds: 61,
      survivors: [
        { file: 'lib/domain/a.ts', line: 3, mutator: 'EqualityOperator', replacement: 'a >= b' },
        { file: 'lib/domain/b.ts', line: 2, mutator: 'EqualityOperator', replacement: 'a >= b' },
      ],
      equivalent: [
        {
          file: 'lib/domain/a.ts',
          line: 4,
          mutator: 'EqualityOperator',
          replacement: 'a >= b',
          reason: 'the caller drops it',
        },
      ],
    });
  });

  it('counts the static mutants --ignore-static left out apart: not run, not equivalent, not scored', () => {
    const staticMutant = mutant('Ignored', 9, { statusReason: 'Static mutant (and "ignoreStatic" was enabled)' });
    const withStatic = { files: { ...REPORT.files, 'lib/domain/c.ts': { mutants: [staticMutant, staticMutant] } } };
    const result = scopeResult(withStatic, 85, 61);
    expect(result).toMatchObject({ score: 60, mutants: 9, ignored: 1, static_not_run: 2 });
    expect(result.equivalent.map((m) => m.file)).toEqual(['lib/domain/a.ts']);
    expect(mutationMarkdown({ domain: result }, ['domain'])).toContain(
      '2 static mutants (code that only runs while a module loads) were not run (`--ignore-static`); they are not in the score.',
    );
    expect(scopeResult(REPORT, 85, 61)).not.toHaveProperty('static_not_run');
  });

  it('renders the score per folder, each survivor, and each equivalent mutant with its reason', () => {
    const markdown = mutationMarkdown({ domain: scopeResult(REPORT, 85, 61) }, ['domain']);
    expect(markdown).toContain('| lib/domain | 60% | 85% | 7 | 2 | 1 | 1 | 1 | 1 | 1 |');
    expect(markdown).toContain('| `lib/domain/b.ts:2` | EqualityOperator | `a >= b` |');
    expect(markdown).toContain('| `lib/domain/a.ts:4` | EqualityOperator | `a >= b` | the caller drops it |');
  });

  it('docs/mutation.md is what the committed results render to', () => {
    const { scopes } = JSON.parse(readFileSync(resolve(ROOT, 'bench/results/mutation.json'), 'utf8')).figures;
    expect(readFileSync(resolve(ROOT, 'docs/mutation.md'), 'utf8')).toBe(mutationMarkdown(scopes, Object.keys(scopes)));
  });

  it('npm run mutate refuses an unknown scope with exit 2, naming the scopes', () => {
    const run = spawnSync('npm', ['run', '--silent', 'mutate', '--', 'nosuch'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown scope nosuch; scopes: domain, http, stores, events, data');
  });

  it.each(['--force', '--ignore-static'])('npm run mutate takes %s as a flag, not as a scope', (flag) => {
    const run = spawnSync('npm', ['run', '--silent', 'mutate', '--', flag, 'nosuch'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown scope nosuch;');
    expect(run.stderr).not.toContain(flag);
  });
});
