/**
 * cdk-nag's AwsSolutions pack over the whole stack and its nested stacks, registered as cdk/app.ts
 * registers it: no unacknowledged error or warning, every acknowledgement still needed, and the
 * list of what is acknowledged pinned here (each reason sits next to its resource in cdk/).
 */
import { App, Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { addNagChecks } from '../../cdk/nag.js';
import { SubscriptionBackendStack } from '../../cdk/stack.js';
import { ROUTES } from '../../lib/routes.js';
import { type Assembly, assemble } from '../support/cdk-assembly.js';
import { CDK_JSON_CONTEXT } from '../support/cdk-context.js';

// Each describe synthesizes the whole app again, nested stacks included (seconds on an idle machine).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

type Report = ReturnType<AwsSolutionsChecks['validateScope']>;

function synth(context: Record<string, string> = {}) {
  // With cdk.json's feature flags, as `cdk synth` runs the pack.
  // No esbuild: the template is what is checked (npm run synth bundles and checks for real). No
  // built-in CloudFormation schema validation either (~10 s): stack.test.ts's synthesis runs it.
  const app = new App({
    builtinCloudFormationValidation: false,
    context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context },
  });
  const stack = new SubscriptionBackendStack(app, 'Test');
  const pack = addNagChecks(app);
  // Synthesis runs the registered pack: an unacknowledged error would throw here, with the report.
  const assembly = assemble(app, stack);
  return { app, pack, assembly, template: assembly.merged };
}

/** One line per finding and resource, so that a failure prints what to fix. */
const findings = (report: Report): string[] =>
  report.violations.flatMap((v) =>
    v.violatingResources.map((r) => `${v.severity} ${v.ruleName} at ${r.constructPath}: ${v.description}`),
  );

/** What the pack finds when acknowledgements are ignored (it has no switch for that, so its private check is replaced). */
function unacknowledgedFindings(pack: AwsSolutionsChecks, app: App): Report {
  expect(typeof Reflect.get(pack, 'isAcknowledged'), 'cdk-nag internals changed: update this helper').toBe('function');
  Reflect.set(pack, 'isAcknowledged', () => false);
  return pack.validateScope(app);
}

/** Every AwsSolutions acknowledgement in the construct tree: where, which finding, why. */
function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) => Object.entries(m.data as Record<string, string>))
      .map(([id, reason]) => ({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason }))
      .filter(({ id }) => id.startsWith('AwsSolutions-')),
  );
}

describe('cdk-nag AwsSolutions checks', () => {
  let app: App;
  let pack: AwsSolutionsChecks;
  let assembly: Assembly;
  let template: Template;
  beforeAll(() => ({ app, pack, assembly, template } = synth()));

  it('leave no unacknowledged error or warning', () => {
    expect(findings(pack.validateScope(app))).toEqual([]);
  });

  it('judge every stack, the nested ones too', () => {
    const judged = unacknowledgedFindings(pack, app).violations.flatMap((v) =>
      v.violatingResources.map((r) => r.constructPath ?? ''),
    );
    expect(assembly.stacks.length).toBeGreaterThan(1);
    for (const { path } of assembly.stacks)
      expect(
        judged.some((p) => p.startsWith(`${path}/`)),
        path,
      ).toBe(true);
  });

  it('acknowledge only these findings, each with a reason, and none that no longer occurs', () => {
    const acks = acknowledgements(app);
    expect([...new Set(acks.map((a) => a.id))].sort()).toEqual(
      [
        'AwsSolutions-APIG2', // request validation: the handlers' zod schemas
        'AwsSolutions-APIG4', // authorization: API keys checked by every handler
        'AwsSolutions-COG4', // same, no Cognito
        'AwsSolutions-IAM5[Resource::*]', // X-Ray, ListStreams: no resource-level permissions
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:subscription-backend/Test/*/app_store-??????]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:subscription-backend/Test/*/google_play-??????]',
        'AwsSolutions-SQS3', // the dead-letter queues themselves
        // The console's bucket and distribution: static files, logged and guarded at the API.
        'AwsSolutions-S1',
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR3',
        'AwsSolutions-CFR4',
        // CDK's BucketDeployment uploader of the console: its runtime and CDK's grants on the two buckets.
        'AwsSolutions-L1',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        'AwsSolutions-IAM5[Action::s3:Abort*]',
        'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
        'AwsSolutions-IAM5[Action::s3:GetBucket*]',
        'AwsSolutions-IAM5[Action::s3:GetObject*]',
        'AwsSolutions-IAM5[Action::s3:List*]',
        'AwsSolutions-IAM5[Resource::<ConsoleFiles2D43986C.Arn>/*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      ].sort(),
    );
    for (const ack of acks) expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);

    const raw = unacknowledgedFindings(pack, app).violations;
    const stale = acks.filter(
      (ack) =>
        !raw.some(
          (v) =>
            v.ruleName === ack.id &&
            v.violatingResources.some(
              (r) => r.constructPath === ack.path || r.constructPath?.startsWith(`${ack.path}/`),
            ),
        ),
    );
    expect(stale.map((a) => `${a.id} at ${a.path}`)).toEqual([]);
  });

  it('writes the acknowledgements and their reasons into the template metadata', () => {
    // cdk-nag does not judge the CORS preflights (OPTIONS): nothing to acknowledge there.
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (method) => method.Properties.HttpMethod !== 'OPTIONS',
    );
    expect(methods.length).toBeGreaterThan(0);
    for (const method of methods) {
      const ids = (method.Metadata.cdk_nag.rules_to_suppress as { id: string; reason: string }[]).map((r) => r.id);
      expect(ids).toEqual(expect.arrayContaining(['AwsSolutions-APIG4', 'AwsSolutions-COG4']));
    }
    // The notification routes take no key: their reason says what authenticates them instead.
    const reasons = methods.map(
      (method) =>
        (method.Metadata.cdk_nag.rules_to_suppress as { id: string; reason: string }[]).find(
          (r) => r.id === 'AwsSolutions-APIG4',
        )!.reason,
    );
    const keyless = reasons.filter((reason) => reason.includes('without a key'));
    const stores = keyless.filter((reason) =>
      /verifies the notification itself.*signature chain.*OIDC token/.test(reason),
    );
    expect(stores).toHaveLength(ROUTES.filter((route) => route.api === 'notifications').length);
    // RevenueCat's two health calls, the routes that read nothing, say so instead.
    expect(keyless.filter((reason) => !stores.includes(reason))).toEqual(
      ['/v1/health', '/v1/subscribers/{app_user_id}/health_report_availability'].map(
        () =>
          "RevenueCat's SDKs send this health call without a key: the handler reads nothing and answers everyone alike.",
      ),
    );
  });
});

describe('the web ACL the stack creates (default)', () => {
  it('satisfies AwsSolutions-APIG3 without acknowledging it', () => {
    const { app, pack, template } = synth();
    expect(Object.keys(template.findResources('AWS::WAFv2::WebACL'))).toHaveLength(1);
    expect(acknowledgements(app).map((a) => a.id)).not.toContain('AwsSolutions-APIG3');
    expect(unacknowledgedFindings(pack, app).violations.map((v) => v.ruleName)).not.toContain('AwsSolutions-APIG3');
  });
});

describe('WAF turned off (-c waf=false)', () => {
  it('acknowledges AwsSolutions-APIG3 on each stage, with why, and leaves no other finding', () => {
    const { app, pack } = synth({ waf: 'false' });
    const apig3 = acknowledgements(app).filter((a) => a.id === 'AwsSolutions-APIG3');
    expect(apig3.map((a) => a.path)).toEqual([
      'Test/Api/RestApi/DeploymentStage.prod/Resource',
      'Test/Api/RevenueCatRestApi/DeploymentStage.prod/Resource',
    ]);
    for (const acknowledgement of apig3) expect(acknowledgement.reason).toMatch(/-c waf=false.*stage throttle/);
    expect(findings(pack.validateScope(app))).toEqual([]);
  });
});

describe('an operator web ACL (-c webAclArn=...)', () => {
  const webAclArn = 'arn:aws:wafv2:eu-west-1:111111111111:regional/webacl/subscriptions/0b1c2d3e';

  it("is associated with both REST APIs' stages and then satisfies AwsSolutions-APIG3 without acknowledging it", () => {
    const { app, pack, template } = synth({ webAclArn });
    const stageIds = Object.keys(template.findResources('AWS::ApiGateway::Stage'));
    const associations = Object.values(template.findResources('AWS::WAFv2::WebACLAssociation'));
    expect(stageIds).toHaveLength(2);
    expect(associations).toHaveLength(2);
    for (const [i, association] of associations.entries()) {
      expect(association.Properties.WebACLArn).toBe(webAclArn);
      expect(JSON.stringify(association.Properties.ResourceArn)).toContain(stageIds[i]);
    }
    expect(acknowledgements(app).map((a) => a.id)).not.toContain('AwsSolutions-APIG3');
    expect(findings(pack.validateScope(app))).toEqual([]);
    expect(unacknowledgedFindings(pack, app).violations.map((v) => v.ruleName)).not.toContain('AwsSolutions-APIG3');
  });
});

describe("API Gateway's CloudWatch role (-c apiGatewayCloudWatchRole=true)", () => {
  it('is acknowledged for its AWS managed policy (AwsSolutions-IAM4) and leaves no other finding', () => {
    const { app, pack } = synth({ apiGatewayCloudWatchRole: 'true' });
    const iam4 = acknowledgements(app).filter(
      (a) => a.id.startsWith('AwsSolutions-IAM4') && !a.path.includes('CDKBucketDeployment'),
    );
    expect(iam4.map((a) => [a.id, a.path])).toEqual([
      [
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        'Test/Api/RestApi/CloudWatchRole/Resource',
      ],
    ]);
    expect(findings(pack.validateScope(app))).toEqual([]);
  });
});
