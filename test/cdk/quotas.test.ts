/**
 * Every stack of the assembly, as `cdk synth` writes it, within CloudFormation's, API Gateway's,
 * IAM's, Lambda's and WAF's quotas (cdk/quotas.ts) to a margin, with today's routes and with three
 * times as many: a route table nearing a quota fails here, not in a deploy.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { notificationPathPattern } from '../../cdk/constructs/waf.js';
import {
  PERMISSION_STATEMENT_ID_LENGTH,
  QUOTA_MARGIN,
  QUOTAS,
  type Quota,
  REFERENCE_LENGTH,
} from '../../cdk/quotas.js';
import { DEFAULT_STACK_NAME } from '../../lib/core/defaults.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { type Assembly, type CfnTemplate, synthesizeAssembly } from '../support/cdk-assembly.js';
import { multiplyRoutes } from '../support/route-growth.js';

type Resource = CfnTemplate['Resources'][string];

/** A CloudFormation value as the text it becomes, each reference counted as REFERENCE_LENGTH characters. */
function deployed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deployed);
  if (value === null || typeof value !== 'object') return value;
  const v = value as Record<string, unknown>;
  if ('Ref' in v || 'Fn::GetAtt' in v || 'Fn::ImportValue' in v) return 'x'.repeat(REFERENCE_LENGTH);
  if ('Fn::Join' in v) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => String(deployed(part))).join(separator);
  }
  if ('Fn::Sub' in v) return String(v['Fn::Sub']).replace(/\$\{[^}]+\}/g, 'x'.repeat(REFERENCE_LENGTH));
  return Object.fromEntries(Object.entries(v).map(([key, item]) => [key, deployed(item)]));
}
const length = (value: unknown) => JSON.stringify(deployed(value)).length;

/** Each measure of a stack or resource against its quota: `[what, measured, quota]`. */
type Measure = [string, number, Quota];

function measures(assembly: Assembly): Measure[] {
  const all: [string, Resource][] = assembly.stacks.flatMap(({ template }) => Object.entries(template.Resources));
  const ofType = (type: string) => all.filter(([, r]) => r.Type === type);
  const refOf = (value: unknown) =>
    (value as { Ref?: string })?.Ref ?? (value as { 'Fn::GetAtt'?: [string] })?.['Fn::GetAtt']?.[0];
  const perStack = assembly.stacks.flatMap(({ path, template }): Measure[] => [
    [`${path}: resources`, Object.keys(template.Resources).length, QUOTAS.resourcesPerStack],
    [`${path}: outputs`, Object.keys(template.Outputs ?? {}).length, QUOTAS.outputsPerStack],
    [`${path}: parameters`, Object.keys(template.Parameters ?? {}).length, QUOTAS.parametersPerStack],
    [`${path}: mappings`, Object.keys(template.Mappings ?? {}).length, QUOTAS.mappingsPerStack],
    // As the CDK writes it to cdk.out and uploads it.
    [`${path}: template bytes`, Buffer.byteLength(JSON.stringify(template, undefined, 1)), QUOTAS.templateBytes],
  ]);
  // Logical ids are unique within a stack; a role and its policies are always in one.
  const roles = assembly.stacks.flatMap(({ path, template }) =>
    Object.entries(template.Resources)
      .filter(([, r]) => r.Type === 'AWS::IAM::Role')
      .map(([id, role]): Measure => {
        const inline = (role.Properties?.Policies ?? []) as { PolicyDocument: unknown }[];
        const attached = Object.values(template.Resources).filter(
          (r) => r.Type === 'AWS::IAM::Policy' && (r.Properties!.Roles as unknown[]).some((x) => refOf(x) === id),
        );
        const size = [...inline, ...attached.map((p) => p.Properties!)].reduce(
          (sum, policy) => sum + length((policy as { PolicyDocument: unknown }).PolicyDocument),
          0,
        );
        return [`${path}/${id}: inline policies`, size, QUOTAS.inlinePoliciesPerRole];
      }),
  );
  const managed = ofType('AWS::IAM::ManagedPolicy').map(
    ([id, p]): Measure => [`${id}: managed policy`, length(p.Properties!.PolicyDocument), QUOTAS.managedPolicy],
  );
  const environments = ofType('AWS::Lambda::Function').map(
    ([id, fn]): Measure => [
      `${id}: environment`,
      length(fn.Properties!.Environment?.Variables ?? {}),
      QUOTAS.lambdaEnvironment,
    ],
  );
  const resourcePolicies = assembly.stacks.flatMap(({ path, template }) =>
    Object.entries(template.Resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .map(([id]): Measure => {
        const statements = Object.values(template.Resources)
          .filter((r) => r.Type === 'AWS::Lambda::Permission' && refOf(r.Properties!.FunctionName) === id)
          .map((p) => ({
            Sid: 'x'.repeat(PERMISSION_STATEMENT_ID_LENGTH),
            Effect: 'Allow',
            Principal: { Service: p.Properties!.Principal },
            Action: p.Properties!.Action,
            Resource: p.Properties!.FunctionName,
            Condition: { ArnLike: { 'AWS:SourceArn': p.Properties!.SourceArn } },
          }));
        const policy = { Version: '2012-10-17', Id: 'default', Statement: statements };
        return [`${path}/${id}: resource-based policy`, length(policy), QUOTAS.lambdaResourcePolicy];
      }),
  );
  // A resource names its REST API by reference: in the parent directly, in a nested stack through
  // a parameter, which the parent's nested stack resource passes as a reference.
  const passed = new Map(
    Object.values(assembly.stacks[0]!.template.Resources)
      .filter((r) => r.Type === 'AWS::CloudFormation::Stack')
      .flatMap((r) => Object.entries((r.Properties!.Parameters ?? {}) as Record<string, unknown>))
      .map(([name, value]) => [name, refOf(value)]),
  );
  const restApiOf = (resource: Resource) => {
    const ref = refOf(resource.Properties!.RestApiId)!;
    return passed.get(ref) ?? ref;
  };
  const restApis = ofType('AWS::ApiGateway::RestApi').map(([id]) => id);
  const apiResources = restApis.map(
    (restApi): Measure => [
      `${restApi}: REST API resources (all stacks, the root included)`,
      ofType('AWS::ApiGateway::Resource').filter(([, r]) => restApiOf(r) === restApi).length + 1,
      QUOTAS.apiGatewayResourcesPerRestApi,
    ],
  );
  // Every resource belongs to one of them.
  const counted = apiResources.reduce((sum, [, measured]) => sum + measured - 1, 0);
  if (counted !== ofType('AWS::ApiGateway::Resource').length) throw new Error('a resource of no REST API');
  return [...perStack, ...roles, ...managed, ...environments, ...resourcePolicies, ...apiResources];
}

/**
 * The measures past QUOTA_MARGIN of their quota, one line each, with the source to read; with
 * `grown`, a quota AWS raises on request is held to its limit instead.
 */
const overMargin = (all: Measure[], grown = false) =>
  all
    .filter(([, measured, quota]) => measured > quota.limit * (grown && quota.raisable ? 1 : QUOTA_MARGIN))
    .map(([what, measured, quota]) => `${what}: ${measured} of ${quota.limit} (${quota.what}; ${quota.source})`);

describe.each([
  ["today's routes", 1],
  ["three times today's routes", 3],
] as const)('the stack with %s', (_, factor) => {
  let routes: Route[];
  let assembly: Assembly;
  let all: Measure[];
  beforeAll(() => {
    routes = multiplyRoutes(ROUTES, factor);
    assembly = synthesizeAssembly({ routes, stackName: DEFAULT_STACK_NAME, asDeployed: true, validate: false });
    all = measures(assembly);
  }, 240_000);

  it('has every route: a method and its permission per route, a function per handler module', () => {
    const resources = assembly.merged.toJSON().Resources as Record<string, Resource>;
    const count = (type: string, where: (r: Resource) => boolean = () => true) =>
      Object.values(resources).filter((r) => r.Type === type && where(r)).length;
    const dingyue = ROUTES.filter((route) => route.path.startsWith('/dingyue/')).length;
    expect(routes).toHaveLength((ROUTES.length - dingyue) * factor + dingyue);
    expect(count('AWS::ApiGateway::Method', (m) => m.Properties!.Integration?.Type === 'AWS_PROXY')).toBe(
      routes.length,
    );
    expect(count('AWS::Lambda::Permission', (p) => p.Properties!.Principal === 'apigateway.amazonaws.com')).toBe(
      routes.length,
    );
    expect(count('AWS::Lambda::Function', (fn) => /^(GET|POST|PUT|DELETE) \//.test(fn.Properties!.Description))).toBe(
      new Set(routes.map((route) => route.handler)).size,
    );
  });

  it(`keeps every stack, role, policy and function within ${QUOTA_MARGIN * 100} % of each quota`, () => {
    // Every kind of measure is taken (none silently empty).
    for (const kind of [
      'resources',
      'template bytes',
      'inline policies',
      'environment',
      'resource-based policy',
      'REST API resources (all stacks, the root included)',
    ])
      expect(
        all.some(([what]) => what.endsWith(kind)),
        kind,
      ).toBe(true);
    expect(overMargin(all, factor > 1)).toEqual([]);
  });

  it("keeps the WAF rule's pattern of the store notification routes within its quota", () => {
    const pattern = notificationPathPattern(routes);
    expect(pattern.length).toBeLessThanOrEqual(QUOTAS.wafRegexString.limit * QUOTA_MARGIN);
    expect(JSON.stringify(assembly.merged.toJSON())).toContain(JSON.stringify(pattern).slice(1, -1));
  });
});

describe('the quota measures', () => {
  it('fail a stack past the margin, and count references at their longest', () => {
    const quota = QUOTAS.resourcesPerStack;
    expect(overMargin([['a stack: resources', 400, quota]])).toEqual([]);
    expect(overMargin([['a stack: resources', 401, quota]])).toEqual([
      `a stack: resources: 401 of 500 (${quota.what}; ${quota.source})`,
    ]);
    expect(length({ Ref: 'Table' })).toBe(REFERENCE_LENGTH + 2);
    expect(length({ 'Fn::Join': ['', ['arn:', { 'Fn::GetAtt': ['Table', 'Arn'] }, '/index/x']] })).toBe(
      'arn:'.length + REFERENCE_LENGTH + '/index/x'.length + 2,
    );
  });
});
