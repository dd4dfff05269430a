/** Reads Stryker's JSON report (mutation-testing-report-schema) into the figures we keep. */

interface ReportMutant {
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number; column: number } };
  status: string;
  statusReason?: string;
}
interface StrykerReport {
  files: Record<string, { mutants: ReportMutant[] }>;
}

export interface ListedMutant {
  file: string;
  line: number;
  mutator: string;
  replacement: string;
  reason?: string;
}

export interface MutationScopeResult {
  /** The folder a part belongs to (lib/data runs in parts); absent when the scope is the folder. */
  folder?: string;
  goal: number;
  score: number;
  mutants: number;
  killed: number;
  timed_out: number;
  survived: number;
  no_coverage: number;
  /** Not counted: compile errors, and mutants ignored in the code with the reason they are equivalent. */
  invalid: number;
  ignored: number;
  /** Not counted either: static mutants left out by `--ignore-static` (absent from older results). */
  static_not_run?: number;
  seconds: number;
  survivors: ListedMutant[];
  equivalent: ListedMutant[];
}

const listed = (file: string, mutant: ReportMutant): ListedMutant => ({
  file,
  line: mutant.location.start.line,
  mutator: mutant.mutatorName,
  replacement: (mutant.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80),
  ...(mutant.statusReason ? { reason: mutant.statusReason } : {}),
});

/** Stryker's status reason for a static mutant that `ignoreStatic` left out. */
const isStaticNotRun = (mutant: ReportMutant) =>
  mutant.status === 'Ignored' && mutant.statusReason?.startsWith('Static mutant') === true;

/** Stryker's mutation score: detected / (detected + undetected), over mutants that compile and are not ignored. */
export function scopeResult(report: StrykerReport, goal: number, seconds: number): MutationScopeResult {
  const count: Record<string, number> = {};
  const survivors: ListedMutant[] = [];
  const equivalent: ListedMutant[] = [];
  let mutants = 0;
  let staticNotRun = 0;
  for (const [file, { mutants: fileMutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    for (const mutant of fileMutants) {
      mutants += 1;
      count[mutant.status] = (count[mutant.status] ?? 0) + 1;
      if (mutant.status === 'Survived' || mutant.status === 'NoCoverage') survivors.push(listed(file, mutant));
      if (isStaticNotRun(mutant)) staticNotRun += 1;
      else if (mutant.status === 'Ignored') equivalent.push(listed(file, mutant));
    }
  }
  const killed = count.Killed ?? 0;
  const timedOut = count.Timeout ?? 0;
  const survived = count.Survived ?? 0;
  const noCoverage = count.NoCoverage ?? 0;
  const detected = killed + timedOut;
  const valid = detected + survived + noCoverage;
  return {
    goal,
    score: valid === 0 ? 100 : Number(((100 * detected) / valid).toFixed(2)),
    mutants,
    killed,
    timed_out: timedOut,
    survived,
    no_coverage: noCoverage,
    invalid: (count.CompileError ?? 0) + (count.RuntimeError ?? 0),
    ignored: (count.Ignored ?? 0) - staticNotRun,
    ...(staticNotRun > 0 ? { static_not_run: staticNotRun } : {}),
    seconds,
    survivors,
    equivalent,
  };
}

const row = (m: ListedMutant) =>
  `| \`${m.file}:${m.line}\` | ${m.mutator} | \`${m.replacement.replace(/\|/g, '\\|')}\` |${m.reason ? ` ${m.reason} |` : ''}`;

const byPlace = (a: ListedMutant, b: ListedMutant) => a.file.localeCompare(b.file) || a.line - b.line;

/**
 * One result per folder, in the order the scopes come: the parts of a folder (scopes run apart, each
 * with its own tests) summed, and the score worked out again from the sums.
 */
export function byFolder(results: Record<string, MutationScopeResult>): Record<string, MutationScopeResult> {
  const parts = new Map<string, MutationScopeResult[]>();
  for (const [name, result] of Object.entries(results)) {
    const folder = result.folder ?? name;
    parts.set(folder, [...(parts.get(folder) ?? []), result]);
  }
  return Object.fromEntries(
    [...parts].map(([folder, results]) => {
      if (results.length === 1 && !results[0]!.folder) return [folder, results[0]!];
      const sum = (
        key: 'mutants' | 'killed' | 'timed_out' | 'survived' | 'no_coverage' | 'invalid' | 'ignored' | 'seconds',
      ) => results.reduce((total, r) => total + r[key], 0);
      const staticNotRun = results.reduce((total, r) => total + (r.static_not_run ?? 0), 0);
      const detected = sum('killed') + sum('timed_out');
      const valid = detected + sum('survived') + sum('no_coverage');
      const merged: MutationScopeResult = {
        goal: Math.max(...results.map((r) => r.goal)),
        score: valid === 0 ? 100 : Number(((100 * detected) / valid).toFixed(2)),
        mutants: sum('mutants'),
        killed: sum('killed'),
        timed_out: sum('timed_out'),
        survived: sum('survived'),
        no_coverage: sum('no_coverage'),
        invalid: sum('invalid'),
        ignored: sum('ignored'),
        ...(staticNotRun > 0 ? { static_not_run: staticNotRun } : {}),
        seconds: sum('seconds'),
        survivors: results.flatMap((r) => r.survivors).sort(byPlace),
        equivalent: results.flatMap((r) => r.equivalent).sort(byPlace),
      };
      return [folder, merged];
    }),
  );
}

/** The scopes run as parts of a folder, by folder: `{ data: ['data-core', ...] }`. */
const partsOf = (results: Record<string, MutationScopeResult>) => {
  const parts: Record<string, string[]> = {};
  for (const [name, result] of Object.entries(results)) if (result.folder) (parts[result.folder] ??= []).push(name);
  return parts;
};

/**
 * docs/mutation.md: the score per folder (a folder run in parts sums them), then each survivor and each
 * mutant ignored as equivalent.
 */
export function mutationMarkdown(scopes: Record<string, MutationScopeResult>): string {
  const results = byFolder(scopes);
  const order = Object.keys(results);
  const parts = partsOf(scopes);
  const lines = [
    '# Mutation testing',
    '',
    'Generated by `npm run mutate` (StrykerJS, `stryker.config.mjs`; scopes and their tests in',
    '`bench/support/mutation-scopes.ts`). A mutant is a one-line change to `lib/`; the score is the share',
    'of mutants some test detects. Goals: 85% in `lib/domain` and `lib/http`, 75% elsewhere. Mutants that',
    'cannot change behaviour are ignored in the code (`// Stryker disable next-line <mutator>: <why>`) and',
    'listed below with that reason. Not part of `npm test` (it takes minutes per folder); `npm run bench`',
    'prints these scores as PASS/FAIL lines from `bench/results/mutation.json`. Runs are incremental: a',
    'rerun tests the mutants of changed code or covered by changed tests and reuses the other results;',
    '`npm run mutate -- <scope> --force` tests every mutant again. A survivor stays listed while no test that',
    'covered it changes, even when a newer test would kill it: after adding tests, rerun with `--force` for',
    'the true list. The minutes are those of the last run; a whole run from scratch',
    '(`npm run mutate -- --ignore-static --force`) took 48 minutes on this 2-core machine',
    '([decisions/mutation-run-time.md](decisions/mutation-run-time.md)).',
    '',
    '| folder | score | goal | mutants | killed | timed out | survived | no coverage | ignored | minutes (last run) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...order.map((name) => {
      const r = results[name]!;
      return `| lib/${name} | ${r.score}% | ${r.goal}% | ${r.mutants} | ${r.killed} | ${r.timed_out} | ${r.survived} | ${r.no_coverage} | ${r.ignored} | ${Math.round(r.seconds / 60)} |`;
    }),
  ];
  lines.push(
    '',
    '## Import-time tables',
    '',
    'Stryker maps each mutant to the tests that ran its code (per-test coverage). Code a module runs while',
    'it loads runs while a test file is collected, under no test: such a mutant is static, and runs against',
    'every test of its scope related to its file (with `--ignore-static` it is left out, counted below as',
    'not run, or run against the one test that loaded the module again, which seldom checks it). Tests',
    'import their subject once, at the top of the file, as its users do. So a table that a function reads',
    '(type names, wordings, a pattern) is written in that function, built at each call by whichever test',
    'makes it, not at module level; a table read in one place is inlined there, which costs the bundle',
    'nothing. What must outlive a call stays at module level: a cache, a client, a constant other modules',
    'import, a schema; so does an arrow function bound to a name, whose one mutant (`() => undefined`) any',
    'test calling it kills. A test evaluates a module again (`vi.resetModules()`) only to read other',
    'environment variables or to stand for another process, and says so.',
  );
  for (const name of order) {
    const r = results[name]!;
    lines.push('', `## lib/${name}`, '');
    if (parts[name])
      lines.push(
        `Run in ${parts[name].length} parts, each a scope of its own with the tests that reach it: ${parts[name]
          .map((part) => `\`${part}\` (${Math.round(scopes[part]!.seconds / 60)} min)`)
          .join(', ')}. \`npm run mutate -- ${name}\` runs them all.`,
        '',
      );
    if (r.static_not_run)
      lines.push(
        `${r.static_not_run} static mutants (code that only runs while a module loads) were not run (\`--ignore-static\`); they are not in the score.`,
        '',
      );
    if (r.survivors.length === 0) lines.push('No mutant survives.');
    else
      lines.push(
        'Surviving mutants:',
        '',
        '| where | mutator | replacement |',
        '|---|---|---|',
        ...r.survivors.map(row),
      );
    if (r.equivalent.length > 0) {
      lines.push('', 'Ignored as equivalent:', '', '| where | mutator | replacement | why |', '|---|---|---|---|');
      lines.push(...r.equivalent.map(row));
    }
  }
  return `${lines.join('\n')}\n`;
}
