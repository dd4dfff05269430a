/** `npm run mutate`'s reading of Stryker's JSON report, and its refusal of an unknown scope. */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { matchesGlob, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byFolder, mutationMarkdown, scopeResult } from '../../bench/support/mutation-report.js';
import { MUTATION_SCOPES, scopesNamed } from '../../bench/support/mutation-scopes.js';

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
    expect(mutationMarkdown({ domain: result })).toContain(
      '2 static mutants (code that only runs while a module loads) were not run (`--ignore-static`); they are not in the score.',
    );
    expect(scopeResult(REPORT, 85, 61)).not.toHaveProperty('static_not_run');
  });

  it('renders the score per folder, each survivor, and each equivalent mutant with its reason', () => {
    const markdown = mutationMarkdown({ domain: scopeResult(REPORT, 85, 61) });
    expect(markdown).toContain('| lib/domain | 60% | 85% | 7 | 2 | 1 | 1 | 1 | 1 | 1 |');
    expect(markdown).toContain('| `lib/domain/b.ts:2` | EqualityOperator | `a >= b` |');
    expect(markdown).toContain('| `lib/domain/a.ts:4` | EqualityOperator | `a >= b` | the caller drops it |');
  });

  it('sums the parts of a folder into one row and works the score out again from the sums', () => {
    const part = (extra: Record<string, unknown>) => ({
      folder: 'data',
      ...scopeResult({ files: { 'lib/data/b.ts': { mutants: [mutant('Killed', 1), mutant('Survived', 2)] } } }, 75, 60),
      ...extra,
    });
    const core = part({});
    const apps = {
      folder: 'data',
      ...scopeResult(
        {
          files: {
            'lib/data/a.ts': {
              mutants: [
                mutant('Killed', 5),
                mutant('Killed', 6),
                mutant('Timeout', 7),
                mutant('NoCoverage', 8),
                mutant('Ignored', 9, { statusReason: 'same either way' }),
                mutant('Ignored', 10, { statusReason: 'Static mutant (and "ignoreStatic" was enabled)' }),
              ],
            },
          },
        },
        75,
        120,
      ),
    };
    const domain = scopeResult(REPORT, 85, 61);
    const folders = byFolder({ domain, 'data-core': core, 'data-apps': apps });
    expect(Object.keys(folders)).toEqual(['domain', 'data']);
    expect(folders.domain).toBe(domain);
    // 1 + 3 detected of 1 + 1 + 3 + 1 scored: 4 / 6.
    expect(folders.data).toEqual({
      goal: 75,
      score: 66.67,
      mutants: 8,
      killed: 3,
      timed_out: 1,
      survived: 1,
      no_coverage: 1,
      invalid: 0,
      ignored: 1,
      static_not_run: 1,
      seconds: 180,
      survivors: [
        { file: 'lib/data/a.ts', line: 8, mutator: 'EqualityOperator', replacement: 'a >= b' },
        { file: 'lib/data/b.ts', line: 2, mutator: 'EqualityOperator', replacement: 'a >= b' },
      ],
      equivalent: [
        {
          file: 'lib/data/a.ts',
          line: 9,
          mutator: 'EqualityOperator',
          replacement: 'a >= b',
          reason: 'same either way',
        },
      ],
    });
    const markdown = mutationMarkdown({ domain, 'data-core': core, 'data-apps': apps });
    expect(markdown).toContain('| lib/data | 66.67% | 75% | 8 | 3 | 1 | 1 | 1 | 1 | 3 |');
    expect(markdown).toContain(
      'Run in 2 parts, each a scope of its own with the tests that reach it: `data-core` (1 min), `data-apps` (2 min). `npm run mutate -- data` runs them all.',
    );
    expect(markdown).not.toContain('lib/data-core');
  });

  it('names a folder run in parts by its folder: npm run mutate -- data runs the three parts', () => {
    expect(scopesNamed('data')).toEqual(['data-core', 'data-subscriptions', 'data-apps']);
    expect(scopesNamed('data-core')).toEqual(['data-core']);
    expect(scopesNamed('stores')).toEqual(['stores']);
    expect(scopesNamed('nosuch')).toEqual([]);
  });

  it('puts every file of lib/data in exactly one part', () => {
    const files = readdirSync(resolve(ROOT, 'lib/data')).filter((name) => name.endsWith('.ts'));
    const parts = scopesNamed('data');
    for (const file of files) {
      const holders = parts.filter((part) =>
        MUTATION_SCOPES[part]!.mutate.some((glob) => matchesGlob(`lib/data/${file}`, glob)),
      );
      expect({ file, holders: holders.length }).toEqual({ file, holders: 1 });
    }
    expect(files.length).toBeGreaterThan(30);
  });

  it('docs/mutation.md is what the committed results render to', () => {
    const { scopes } = JSON.parse(readFileSync(resolve(ROOT, 'bench/results/mutation.json'), 'utf8')).figures;
    expect(readFileSync(resolve(ROOT, 'docs/mutation.md'), 'utf8')).toBe(mutationMarkdown(scopes));
  });

  it('npm run mutate refuses an unknown scope with exit 2, naming the scopes', () => {
    const run = spawnSync('npm', ['run', '--silent', 'mutate', '--', 'nosuch'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      'unknown scope nosuch; scopes: domain, http, stores, events, data, data-core, data-subscriptions, data-apps',
    );
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
