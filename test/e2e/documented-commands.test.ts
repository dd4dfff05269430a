/**
 * Every npm script the docs name (README.md, CHANGELOG.md, docs/**), run as a process the way the
 * docs run it: here, or by the test named for it. The slow ones are run in a short form, and the
 * table says why: a benchmark takes minutes (`--help`, which parses its command line and exits
 * before starting anything, or a short mode where it has one), and the suite's own scripts must
 * not run the suite again. `npm run synth` runs whole: it bundles every function (about a minute of
 * CPU), and its output is what operations.md says it is.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECTS } from '../../vitest.config.js';
import { REPO_ROOT } from '../support/processes.js';

const SCRIPTS: Record<string, string> = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts;

/** The Markdown files that are the docs, relative to the repository. */
function docFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file));
  return ['README.md', 'CHANGELOG.md', ...docs];
}

/** Every script a doc names: `npm run [--silent] <script>`, `npm test`, `npm start`. */
function documentedScripts(): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const file of docFiles()) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const match of text.matchAll(/\bnpm\s+(?:run(?:\s+--silent)?\s+([a-z][\w:-]*)|(test|start)\b)/g)) {
      const script = match[1] ?? match[2]!;
      named.set(script, [...(named.get(script) ?? []), file]);
    }
  }
  return named;
}

/** The child's environment: this run's, without what would make a nested vitest think it is a worker. */
const childEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST'))),
  ...extra,
});

const npm = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  spawnSync('npm', args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: childEnv(options.env),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
const shown = (run: SpawnSyncReturns<string>) => `exit ${run.status}\n${run.stdout}\n${run.stderr}`;

/** The scripts covered by another test, which runs them as processes; the text it must hold to do so. */
const ELSEWHERE: Record<string, { file: string; runs: string }> = {
  start: { file: 'test/e2e/quick-start.test.ts', runs: "start('npm', ['start']" },
  // The README's quick start, run by bash as it stands there, calls `npm run --silent admin -- ...`.
  admin: { file: 'test/e2e/quick-start.test.ts', runs: "start('bash', ['-e', '-c', script]" },
  'bench:report': {
    file: 'test/unit/benchmarks-doc.test.ts',
    runs: "'run', '--silent', 'bench:report', '--', '--out'",
  },
  // Minutes per folder: its argument parsing (an unknown scope refused, the flags taken as flags).
  mutate: { file: 'test/unit/mutation-report.test.ts', runs: "'run', '--silent', 'mutate', '--', 'nosuch'" },
};

/** The benchmark scripts whose `--help` is run here (each takes minutes, and writes its results file). */
const BENCHMARKS = [
  'bench',
  'bench:cold-start',
  'bench:cost',
  'bench:events',
  'bench:hot-app',
  'bench:hot-path',
  'bench:scaling',
  'bench:throughput',
  'soak',
];

/** The scripts an `it` below runs. */
const HERE = [
  ...BENCHMARKS,
  'test',
  'test:unit',
  'typecheck',
  'lint',
  'format',
  'cdk',
  'synth',
  'openapi',
  'build:dynamodb-launcher',
];

describe('the npm scripts the docs name', () => {
  it('are scripts of package.json, each covered here or by the test named for it', () => {
    const named = documentedScripts();
    // The README's own commands at least: a regression in the reading would pass everything.
    for (const script of ['start', 'test', 'test:unit', 'bench', 'synth', 'cdk', 'admin'])
      expect([...named.keys()]).toContain(script);
    for (const [script, files] of named) {
      expect(SCRIPTS, `${files[0]} names npm run ${script}`).toHaveProperty([script]);
      expect(HERE.includes(script) || script in ELSEWHERE, `npm run ${script} (${files[0]}) is not covered`).toBe(true);
    }
    for (const [script, { file, runs }] of Object.entries(ELSEWHERE))
      expect(readFileSync(join(REPO_ROOT, file), 'utf8'), `${file} runs ${script}`).toContain(runs);
  });

  it.each(BENCHMARKS)('npm run %s -- --help prints its usage and starts nothing', (script) => {
    const run = npm(['run', '--silent', script, '--', '--help']);
    expect(run.status, shown(run)).toBe(0);
    expect(
      run.stdout.startsWith(`Usage: npm run ${script}\n`) || run.stdout.startsWith(`Usage: npm run ${script} [`),
    ).toBe(true);
    expect(run.stderr).toBe('');
  });

  it('a benchmark refuses an option it does not know, and a bad setting, with exit 2 and its usage', () => {
    const unknown = npm(['run', '--silent', 'bench:cold-start', '--', '--pairs', '3']);
    expect(unknown.status, shown(unknown)).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--pairs'");
    expect(unknown.stderr).toContain('Usage: npm run bench:cold-start');
    const few = npm(['run', '--silent', 'bench:cold-start'], { env: { COLD_START_RUNS: '7' } });
    expect(few.status, shown(few)).toBe(2);
    expect(few.stderr).toContain('COLD_START_RUNS must be an integer of at least 15');
    const bad = npm(['run', '--silent', 'bench:cost', '--', '--bill', '--mau', 'many']);
    expect(bad.status, shown(bad)).toBe(2);
    expect(bad.stderr).toContain('--mau (COST_MAU) must be a number of at least 0, got "many"');
  });

  it('npm run bench:cost -- --bill prints the bill of the app the flags and the environment describe', () => {
    const run = npm(['run', '--silent', 'bench:cost', '--', '--bill', '--subscribers', '20000', '--price', '10'], {
      env: { COST_MAU: '1000000', COST_LAUNCHES_PER_DAY: '4', COST_EVENTS_PER_DAY: '8', COST_SUBSCRIBERS: '1' },
    });
    expect(run.status, shown(run)).toBe(0);
    expect(run.stdout).toContain(
      'Monthly bill of an app with 1,000,000 monthly active users, 20,000 subscribers at $10.00 a month, 4 launches and 8 events per user per day',
    );
    for (const item of ['API Gateway', 'WAF', 'Lambda', 'DynamoDB', 'EventBridge', 'CloudWatch Logs', 'total'])
      expect(run.stdout).toMatch(new RegExp(`^  ${item} +\\$[\\d,]+\\.\\d\\d  `, 'm'));
    expect(run.stdout).toContain('A 1% revenue-share service: $2,000.00 a month (of $200,000.00 revenue).');
  });

  it('npm test is the type check, the lint and this vitest run', () => {
    expect(SCRIPTS.test).toBe('npm run typecheck && npm run lint && vitest run');
  });

  it('npm run typecheck and npm run lint pass (under npm test, which ran both before this run)', () => {
    // npm sets npm_lifecycle_event for the script it runs, and the workers inherit it: under `npm
    // test` both ran as processes and passed, or vitest would not have started.
    if (process.env.npm_lifecycle_event === 'test') return;
    for (const script of ['typecheck', 'lint']) {
      const run = npm(['run', '--silent', script]);
      expect(run.status, `npm run ${script}: ${shown(run)}`).toBe(0);
    }
  }, 600_000);

  it('npm run test:unit resolves the unit project (a filter no file matches: the unit tests run once, in npm test)', () => {
    const run = npm(['run', 'test:unit', '--', '--passWithNoTests', '--reporter=dot', 'test/no-such-test-file']);
    expect(run.status, shown(run)).toBe(0);
    expect(run.stdout).toContain('No test files found');
    expect(run.stdout + run.stderr).not.toContain('No projects matched');
  }, 120_000);

  it('every test file is in exactly one vitest project; the unit project is test/unit', () => {
    const run = spawnSync('npx', ['vitest', 'list', '--filesOnly', '--json'], {
      cwd: REPO_ROOT,
      env: childEnv(),
      encoding: 'utf8',
    });
    expect(run.status, shown(run)).toBe(0);
    const listed = (JSON.parse(run.stdout) as { file: string; projectName: string }[]).map(({ file, projectName }) => ({
      file: relative(REPO_ROOT, file),
      project: projectName,
    }));
    const onDisk = readdirSync(join(REPO_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => join('test', file))
      .sort();
    expect(listed.map((l) => l.file).sort()).toEqual(onDisk);
    expect(Object.keys(PROJECTS)).toEqual(['unit', 'integration', 'e2e', 'cdk']);
    for (const { file, project } of listed) expect(file.startsWith(`test/${project}/`), file).toBe(true);
  }, 120_000);

  it('npm run format formats the files of the tree it runs in', () => {
    const dir = mkdtempSync(join(tmpdir(), 'format-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', scripts: { format: SCRIPTS.format } }));
    writeFileSync(join(dir, 'biome.jsonc'), readFileSync(join(REPO_ROOT, 'biome.jsonc')));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
    // Biome reads .gitignore through git (biome.jsonc's vcs settings).
    expect(spawnSync('git', ['init', '-q'], { cwd: dir }).status).toBe(0);
    writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
    writeFileSync(join(dir, 'sample.ts'), 'export const  sample = {a:1,"b" : [1,2]}\n');
    const run = npm(['run', '--silent', 'format'], { cwd: dir });
    expect(run.status, shown(run)).toBe(0);
    expect(readFileSync(join(dir, 'sample.ts'), 'utf8')).toBe('export const sample = { a: 1, b: [1, 2] };\n');
  }, 120_000);

  it('npm run synth bundles every function and prints one line for each, nothing else (docs/operations.md)', () => {
    expect(SCRIPTS.synth).toBe('cdk synth --quiet');
    const out = mkdtempSync(join(tmpdir(), 'synth-'));
    // Not --silent: operations.md describes what follows npm's own header.
    const run = npm(['run', 'synth', '--', '-o', out]);
    expect(run.status, shown(run)).toBe(0);
    const lines = `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => line.trim() !== '');
    // The CDK CLI's notices, when AWS has published any, close the output (none reach this offline machine).
    const notices = lines.findIndex((line) => line.startsWith('NOTICES'));
    const printed = notices === -1 ? lines : lines.slice(0, notices);
    expect(printed.filter((line) => line.startsWith('> '))).toEqual([
      expect.stringMatching(/^> subscription-backend@[\d.]+ synth$/),
      `> cdk synth --quiet -o ${out}`,
    ]);
    const bundled = printed.filter((line) => !line.startsWith('> '));
    for (const line of bundled) expect(line).toMatch(/^Bundling asset SubscriptionBackend\/\S+\/Code\/Stage\.\.\.$/);
    const templates = readdirSync(out).filter((file) => file.endsWith('.template.json'));
    type Resource = { Type: string; Properties: { Runtime?: string } };
    // Ours are Node.js functions; the console's BucketDeployment function is CDK's own (Python, built in advance).
    const functions = templates.flatMap((file) =>
      Object.values(JSON.parse(readFileSync(join(out, file), 'utf8')).Resources as Record<string, Resource>).filter(
        (resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Runtime?.startsWith('nodejs'),
      ),
    );
    expect(functions.length).toBeGreaterThan(40);
    expect(bundled).toHaveLength(functions.length);
  }, 900_000);

  it('npm run cdk -- ls lists the stack', () => {
    const run = npm(['run', '--silent', 'cdk', '--', 'ls']);
    expect(run.status, shown(run)).toBe(0);
    expect(run.stdout).toMatch(/^SubscriptionBackend/m);
  }, 600_000);

  it('npm run openapi writes the committed document', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    const run = npm(['run', '--silent', 'openapi', '--', '--out', out]);
    expect(run.status, shown(run)).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(REPO_ROOT, 'docs/openapi.json'), 'utf8'));
  }, 120_000);

  it('npm run build:dynamodb-launcher compiles the committed class', () => {
    const out = mkdtempSync(join(tmpdir(), 'launcher-'));
    const run = npm(['run', '--silent', 'build:dynamodb-launcher', '--', '--out', out]);
    expect(run.status, shown(run)).toBe(0);
    const built = readdirSync(out).filter((file) => file.endsWith('.class'));
    expect(built).toEqual(['LoopbackDynamoDbLocal.class']);
    expect(readFileSync(join(out, built[0]!))).toEqual(
      readFileSync(resolve(REPO_ROOT, 'local/java/LoopbackDynamoDbLocal.class')),
    );
  }, 120_000);
});
