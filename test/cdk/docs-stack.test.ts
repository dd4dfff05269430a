/**
 * What the docs say the stack creates is what it synthesizes: the function and route counts, the
 * outputs, the nested stacks, every kind of resource, the `ANY` methods cdk-nag's acknowledgements
 * are counted by, and the table's indexes. A change to the stack that leaves a page behind fails
 * here, naming the page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { endpointFunctions, ROUTES } from '../../lib/routes.js';
import { type Assembly, type CfnTemplate, synthesizeAssembly } from '../support/cdk-assembly.js';
import { REPO_ROOT } from '../support/processes.js';

vi.setConfig({ testTimeout: 120_000 });

/** A page's text with its line breaks as spaces, so a sentence reads the same however it is wrapped. */
const page = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8').replace(/\s+/g, ' ');
/** The text from a heading to the next heading of the same or a higher level. */
function section(path: string, heading: string): string {
  const text = readFileSync(join(REPO_ROOT, path), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${path}: ${heading}`).toBeGreaterThan(-1);
  const level = heading.indexOf(' ');
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return (end === -1 ? rest : rest.slice(0, end)).replace(/\s+/g, ' ');
}
const backticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map(([, name]) => name!);

/** CDK's own uploader of the console's files (BucketDeployment): a function the project does not bundle. */
const CDK_UPLOADER = /^CustomCDKBucketDeployment/;

/**
 * Where "What the stack creates" names each kind of resource the stack has. A kind that is not
 * here fails the test: say in operations.md what it is, then add it.
 */
const NAMED_AS: Record<string, string> = {
  'AWS::DynamoDB::Table': 'the DynamoDB table',
  'AWS::Lambda::Function': 'Lambda function',
  'AWS::IAM::Role': 'a role',
  'AWS::IAM::Policy': 'roles',
  'AWS::Logs::LogGroup': 'log group',
  'AWS::ApiGateway::RestApi': 'API Gateway REST API',
  'AWS::ApiGateway::Resource': 'API Gateway resources',
  'AWS::ApiGateway::Method': 'methods',
  'AWS::ApiGateway::Deployment': 'its stage',
  'AWS::ApiGateway::Stage': 'its stage',
  'AWS::ApiGateway::GatewayResponse': 'gateway responses',
  'AWS::Lambda::Permission': 'Lambda permissions',
  'AWS::WAFv2::WebACL': 'AWS WAF web ACL',
  'AWS::WAFv2::WebACLAssociation': 'AWS WAF web ACL',
  'AWS::Events::EventBus': 'an EventBridge bus',
  'AWS::Events::Rule': 'the one-minute schedules',
  'AWS::Lambda::EventSourceMapping': 'event source',
  'AWS::SQS::Queue': 'dead-letter queue',
  'AWS::SQS::QueuePolicy': 'dead-letter queue',
  'AWS::CloudWatch::Alarm': 'CloudWatch alarms',
  'AWS::SNS::Topic': 'an SNS topic',
  'AWS::SNS::TopicPolicy': 'an SNS topic',
  'AWS::S3::Bucket': 'a private S3 bucket',
  'AWS::S3::BucketPolicy': 'origin access control',
  'AWS::CloudFront::Distribution': 'a CloudFront distribution',
  'AWS::CloudFront::OriginAccessControl': 'origin access control',
  'AWS::CloudFront::ResponseHeadersPolicy': "the console's security headers",
  'Custom::CDKBucketDeployment': "CDK's BucketDeployment",
  'AWS::Lambda::LayerVersion': 'a layer holding the AWS CLI',
  'AWS::CloudFormation::Stack': 'nested stacks',
};

let assembly: Assembly;
let resources: CfnTemplate['Resources'];
let outputs: string[];
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

beforeAll(() => {
  assembly = synthesizeAssembly({ validate: false });
  resources = assembly.merged.toJSON().Resources as CfnTemplate['Resources'];
  outputs = Object.keys(assembly.stacks[0]!.template.Outputs ?? {});
});

describe('the docs agree with the synthesized stack', () => {
  it('operations.md counts the functions and routes the stack has', () => {
    const text = page('docs/operations.md');
    const stated =
      /so (\d+) functions serve the (\d+) routes \((\d+) with the event and job functions, the (\d+) that `npm run synth` bundles\)/.exec(
        text,
      );
    expect(
      stated,
      'docs/operations.md: "so N functions serve the M routes (K with the event and job functions, the K that `npm run synth` bundles)"',
    ).not.toBeNull();
    const [, endpoint, routes, all, bundled] = stated!.map(Number);
    const functions = ofType('AWS::Lambda::Function');
    const ours = functions.filter(([id]) => !CDK_UPLOADER.test(id));
    const routeMethods = ofType('AWS::ApiGateway::Method').filter(
      ([, r]) => !['ANY', 'OPTIONS'].includes(r.Properties!.HttpMethod as string),
    );
    const routeFunctions = ours.filter(([, r]) => String(r.Properties!.Description).match(/^(GET|POST|PUT|DELETE) \//));
    expect({ endpoint, routes, all, bundled }).toEqual({
      endpoint: routeFunctions.length,
      routes: routeMethods.length,
      all: ours.length,
      bundled: ours.length,
    });
    expect([routeFunctions.length, routeMethods.length]).toEqual([endpointFunctions().length, ROUTES.length]);
    // Every other function is CDK's uploader, which the page names as one more.
    expect(functions.length - ours.length).toBe(1);
  });

  it('operations.md lists every output of the parent stack, and README.md names only outputs it has', () => {
    const creates = section('docs/operations.md', '### What the stack creates');
    const listed = backticked(creates.slice(creates.indexOf('Outputs:'), creates.indexOf('; run the CLI')));
    const matches = (name: string, output: string) =>
      name.endsWith('…') ? output.startsWith(name.slice(0, -1)) : output === name;
    expect(outputs.filter((output) => !listed.some((name) => matches(name, output)))).toEqual([]);
    expect(listed.filter((name) => !outputs.some((output) => matches(name, output)))).toEqual([]);

    const readme = page('README.md');
    const named = backticked(
      readme.slice(readme.indexOf('its outputs include'), readme.indexOf('Then point the operator CLI')),
    );
    expect(named.length).toBeGreaterThan(2);
    expect(named.filter((name) => !outputs.includes(name))).toEqual([]);
  });

  it('operations.md names each nested stack, and only those', () => {
    const creates = section('docs/operations.md', '### What the stack creates');
    const paragraph = creates.slice(creates.indexOf('**One stack and its nested stacks.**'));
    const named = [...paragraph.slice(0, paragraph.indexOf('Each holds')).matchAll(/`(\w+)` \(/g)].map(([, id]) => id!);
    const nested = assembly.stacks.filter((s) => s.nested).map((s) => s.path.split('/').at(-1)!);
    expect(named.sort()).toEqual([...nested].sort());
  });

  it('"What the stack creates" names every kind of resource the stack has', () => {
    const creates = section('docs/operations.md', '### What the stack creates');
    const types = [...new Set(Object.values(resources).map((r) => r.Type))].filter(
      (type) => type !== 'AWS::CDK::Metadata',
    );
    expect(
      types.filter((type) => !(type in NAMED_AS)),
      'kinds of resource operations.md does not name yet',
    ).toEqual([]);
    expect(
      types.filter((type) => !creates.includes(NAMED_AS[type]!)).map((type) => `${type}: "${NAMED_AS[type]}"`),
    ).toEqual([]);
  });

  it('security.md counts the ANY methods whose cdk-nag findings it acknowledges, two rules each', () => {
    const stated = /one per route path: (\d+) methods, (\d+) acknowledgements/.exec(page('docs/security.md'));
    expect(stated).not.toBeNull();
    const anyMethods = ofType('AWS::ApiGateway::Method').filter(([, r]) => r.Properties!.HttpMethod === 'ANY');
    expect(anyMethods).toHaveLength(new Set(ROUTES.map((route) => route.path)).size);
    expect([Number(stated![1]), Number(stated![2])]).toEqual([anyMethods.length, 2 * anyMethods.length]);
  });

  it('security.md counts the routes the isolation test covers: every route of lib/routes.ts', () => {
    const stated = /proves this for all (\d+) routes of `lib\/routes.ts`/.exec(page('docs/security.md'));
    expect(Number(stated?.[1])).toBe(ROUTES.length);
  });

  it("operations.md counts the table's indexes", () => {
    const [[, table]] = ofType('AWS::DynamoDB::Table') as [[string, CfnTemplate['Resources'][string]]];
    const indexes = (table.Properties!.GlobalSecondaryIndexes as unknown[]).length;
    const stated = /the table and each of its (\d+) indexes/.exec(page('docs/operations.md'));
    expect(Number(stated?.[1])).toBe(indexes);
    expect(page('docs/operations.md')).toContain(`everything (table and ${indexes} indexes)`);
  });
});
