/**
 * AWS's CloudFormation linter over every template `cdk synth` writes (the parent's and each nested
 * stack's): no error, and no warning but those listed with why in ./cfn-lint-accepted.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STACK_NAME } from '../../lib/core/defaults.js';
import { synthesizeAssembly } from '../support/cdk-assembly.js';
import { ACCEPTED_CFN_LINT_WARNINGS } from './cfn-lint-accepted.js';

interface Finding {
  Filename: string;
  Level: 'Error' | 'Warning' | 'Informational';
  Message: string;
  Location: { Path: (string | number)[] };
  Rule: { Id: string };
}

/** cfn-lint on PATH, or where pyenv puts it on these machines; CFN_LINT names another. */
const CANDIDATES = [process.env.CFN_LINT, 'cfn-lint', join(homedir(), '.pyenv/shims/cfn-lint')].filter(
  (c): c is string => Boolean(c),
);

/** One cfn-lint run over these files (it takes seconds to start): its findings. */
function lint(files: string[]): Finding[] {
  for (const command of CANDIDATES) {
    const run = spawnSync(command, ['--format', 'json', ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') continue;
    // Its exit status is a bit mask of what it found (2 errors, 4 warnings, 8 informational); 1 is a failure to run.
    if (run.status === null || run.status === 1 || run.status > 15)
      throw new Error(`${command} failed (status ${run.status}): ${run.error ?? run.stderr}`);
    return JSON.parse(run.stdout || '[]') as Finding[];
  }
  throw new Error(
    `cfn-lint, AWS's CloudFormation linter, was not found (tried ${CANDIDATES.join(', ')}): install it with ` +
      '`pip install cfn-lint` (Python 3.9+), or set CFN_LINT to its path. .ci/run installs it when it can.',
  );
}

const where = (f: Finding) => `${f.Filename.split('/').pop()}: ${f.Location.Path.join('/')}`;

/** A template with one thing cfn-lint warns about, linted with the stack's: the run is seen to report. */
const SAMPLE = 'redundant-depends-on.json';

describe('cfn-lint', () => {
  let dir: string;
  let templates: string[];
  let findings: Finding[];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cfn-lint-'));
    // With the optional custom domain, so that its resources are linted too.
    synthesizeAssembly({
      stackName: DEFAULT_STACK_NAME,
      asDeployed: true,
      validate: false,
      outdir: dir,
      context: {
        apiDomainName: 'api.example.com',
        apiCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666',
      },
    }).app.synth();
    templates = readdirSync(dir)
      .filter((name) => name.endsWith('.template.json'))
      .map((name) => join(dir, name));
    writeFileSync(
      join(dir, SAMPLE),
      JSON.stringify({
        Resources: {
          Queue: { Type: 'AWS::SQS::Queue', DependsOn: ['Topic'], Properties: { QueueName: { Ref: 'Topic' } } },
          Topic: { Type: 'AWS::SNS::Topic' },
        },
      }),
    );
    findings = lint([...templates, join(dir, SAMPLE)]).filter((f) => f.Level !== 'Informational');
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds no error and no warning but the accepted ones in any template, the nested stacks too', () => {
    expect(templates.filter((t) => t.endsWith('.nested.template.json')).length).toBeGreaterThan(0);
    const ours = findings.filter((f) => !f.Filename.endsWith(SAMPLE));
    const accepted = (f: Finding) =>
      f.Level === 'Warning' && ACCEPTED_CFN_LINT_WARNINGS.some((a) => a.rule === f.Rule.Id && a.at.test(where(f)));
    expect(ours.filter((f) => !accepted(f)).map((f) => `${f.Level} ${f.Rule.Id} at ${where(f)}: ${f.Message}`)).toEqual(
      [],
    );
    const stale = ACCEPTED_CFN_LINT_WARNINGS.filter(
      (a) => !ours.some((f) => f.Rule.Id === a.rule && a.at.test(where(f))),
    );
    expect(stale.map((a) => `${a.rule} ${a.at}`)).toEqual([]);
    for (const a of ACCEPTED_CFN_LINT_WARNINGS) expect(a.why.length, `${a.rule} ${a.at}`).toBeGreaterThan(40);
  });

  it('reports what it finds: a redundant DependsOn is a W3005 warning', () => {
    expect(findings.filter((f) => f.Filename.endsWith(SAMPLE)).map((f) => [f.Level, f.Rule.Id, where(f)])).toEqual([
      ['Warning', 'W3005', `${SAMPLE}: Resources/Queue/DependsOn/0`],
    ]);
  });
});
