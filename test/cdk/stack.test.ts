import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionBackendStack } from '../../cdk/stack.js';
import { TABLE } from '../../lib/data/table.js';
import { ROUTES } from '../../lib/routes.js';

type Resource = { Type: string; Properties: Record<string, any> };

let template: Template;
let resources: Record<string, Resource>;

beforeAll(() => {
  // Skip esbuild here (the synth script bundles for real): the template is what is asserted.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  template = Template.fromStack(new SubscriptionBackendStack(app, 'Test'));
  resources = template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const refOf = (value: unknown): string | undefined => (value as { Ref?: string; 'Fn::GetAtt'?: [string, string] })?.Ref ?? (value as { 'Fn::GetAtt'?: [string] })?.['Fn::GetAtt']?.[0];

/** The Lambda function of a route: found by the description the api construct gives it. */
function functionOf(route: (typeof ROUTES)[number]): [string, Resource] {
  const found = ofType('AWS::Lambda::Function').filter(([, r]) => r.Properties.Description === `${route.method} ${route.path}`);
  expect(found, `${route.method} ${route.path}`).toHaveLength(1);
  return found[0]!;
}

/** Every action the role of this function may perform, from all policies attached to it. */
function actionsOf(functionId: string): string[] {
  const role = refOf(resources[functionId]!.Properties.Role);
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as unknown[]).some((r) => refOf(r) === role))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}

describe('the CDK stack', () => {
  it('has one function per route, each behind an API Gateway method with a Lambda proxy integration', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(ROUTES.length);
    for (const route of ROUTES) {
      const [functionId] = functionOf(route);
      const methods = ofType('AWS::ApiGateway::Method').filter(
        ([, m]) => m.Properties.HttpMethod === route.method && JSON.stringify(m.Properties.Integration?.Uri ?? '').includes(functionId),
      );
      expect(methods, `${route.method} ${route.path}`).toHaveLength(1);
      expect(methods[0]![1].Properties.Integration.Type).toBe('AWS_PROXY');
    }
  });

  it('creates the resource path of every route', () => {
    const parts = new Set(ofType('AWS::ApiGateway::Resource').map(([, r]) => r.Properties.PathPart));
    for (const route of ROUTES) for (const part of route.path.split('/').filter(Boolean)) expect(parts).toContain(part);
  });

  it('runs every function on Node.js 24, arm64, with the table name and source maps', () => {
    template.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: { Variables: Match.objectLike({ TABLE_NAME: Match.anyValue(), NODE_OPTIONS: '--enable-source-maps' }) },
    });
  });

  it('builds the table from the one definition: keys, every GSI, stream, TTL and point-in-time recovery', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
    const [, table] = ofType('AWS::DynamoDB::Table')[0]!;
    const indexes = table.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: { AttributeName: string }[]; Projection: { ProjectionType: string } }[];
    expect(indexes.map((i) => i.IndexName).sort()).toEqual(Object.keys(TABLE.indexes).sort());
    for (const index of indexes) {
      expect(index.KeySchema.map((k) => k.AttributeName)).toEqual([TABLE.indexes[index.IndexName]!.partitionKey, TABLE.indexes[index.IndexName]!.sortKey]);
      expect(index.Projection.ProjectionType).toBe('ALL');
    }
  });

  it('keeps the table when the stack is deleted', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('grants no function dynamodb:* and no wildcard action at all', () => {
    for (const [, policy] of ofType('AWS::IAM::Policy')) {
      for (const statement of policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[]) {
        for (const action of [statement.Action].flat()) {
          expect(action).not.toBe('dynamodb:*');
          expect(action).not.toBe('*');
        }
      }
    }
  });

  it("grants each route's function exactly the DynamoDB actions its route declares, on the table and its indexes", () => {
    for (const route of ROUTES) {
      const [functionId] = functionOf(route);
      const dynamoActions = actionsOf(functionId).filter((a) => a.startsWith('dynamodb:'));
      expect(new Set(dynamoActions), route.name).toEqual(new Set(route.table.map((a) => `dynamodb:${a}`)));
    }
    const statement = ofType('AWS::IAM::Policy')
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .find((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    expect(JSON.stringify(statement?.Resource)).toContain('/index/*');
  });

  it('answers gateway-level errors with JSON envelopes (404 unknown route, 429 throttled)', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', { ResponseType: 'MISSING_AUTHENTICATION_TOKEN', StatusCode: '404' });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', { ResponseType: 'THROTTLED', StatusCode: '429' });
  });

  it('outputs the API URL and the table name', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('TableName', {});
  });
});
