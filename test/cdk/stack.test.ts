import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Synthesise as `cdk deploy` does without the variables set: the deployed defaults, not the
  // test environment's (test/support/env.ts raises both limits for the other suites).
  delete process.env.RATE_LIMIT_STANDARD_PER_MINUTE;
  delete process.env.RATE_LIMIT_PREMIUM_PER_MINUTE;
});

import { WAF_RULES } from '../../bench/support/monthly-bill.js';
import {
  ROUTE_THROTTLE_CONTEXT,
  ROUTE_THROTTLE_DEFAULTS,
  type RouteThrottleKind,
  routeThrottleKind,
  STAGE_NAME,
} from '../../cdk/constructs/api.js';
import { routesBySurface } from '../../cdk/constructs/api-surfaces.js';
import { DEFAULT_MAX_REQUEST_UNITS } from '../../cdk/constructs/data.js';
import { DEFAULT_WEBHOOK_DELIVERER_CONCURRENCY } from '../../cdk/constructs/notifications.js';
import { notificationPathPattern, revenuecatPathPattern } from '../../cdk/constructs/waf.js';
import { REPORT_QUOTA_VARIABLES, rateLimitVariable } from '../../lib/core/config.js';
import { AppError, ERRORS } from '../../lib/core/errors.js';
import { type IndexName, projectionOf, TABLE } from '../../lib/data/table.js';
import { STORE_SECRETS_PREFIX_OUTPUT } from '../../lib/domain/credential-placement.js';
import { RATE_LIMIT_TIERS } from '../../lib/domain/rate-limit.js';
import { revenuecatRefusalOf } from '../../lib/domain/revenuecat-errors.js';
import { AGGREGATED_STREAM_FILTER } from '../../lib/events/aggregator.js';
import { PUBLISHED_STREAM_FILTERS } from '../../lib/events/outbox.js';
import { isRevenueCatPath, REVENUECAT_CORS_ALLOWED_HEADERS, REVENUECAT_PREFIXES } from '../../lib/http/revenuecat.js';
import { ENDPOINT_TIMEOUT_SECONDS, endpointFunctions, ROUTES, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';
import { PAYWALLS_BUCKET_OUTPUT, PAYWALLS_PREFIX } from '../../lib/schemas/paywall.js';
import { type Assembly, synthesizeAssembly } from '../support/cdk-assembly.js';
import { type Grants, ROUTE_GRANTS, WORKER_GRANTS } from '../support/grants.js';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

// Several tests synthesize the stack again with other context (2 to 7 s each on an idle machine).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

let assembly: Assembly;
/** The parent's and every nested stack's resources in one template (test/support/cdk-assembly.ts). */
let template: Template;
let resources: Record<string, Resource>;

const synthesize = (context: Record<string, unknown> = {}) => synthesizeAssembly({ context }).merged;
const API_CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666';

beforeAll(() => {
  assembly = synthesizeAssembly();
  template = assembly.merged;
  resources = template.toJSON().Resources as Record<string, Resource>;
});

/** CDK's BucketDeployment function, role and policy (they upload the console): not ours, asserted on their own below. */
const CONSOLE_UPLOADER = /^CustomCDKBucketDeployment/;
const ofType = (type: string) =>
  Object.entries(resources).filter(([id, r]) => r.Type === type && !CONSOLE_UPLOADER.test(id));
const refOf = (value: unknown): string | undefined =>
  (value as { Ref?: string; 'Fn::GetAtt'?: [string, string] })?.Ref ??
  (value as { 'Fn::GetAtt'?: [string] })?.['Fn::GetAtt']?.[0];

/** The logical id of a REST API: the service's (every route of ours) or RevenueCat's dialect's. */
const restApiIdOf = (key: 'service' | 'revenuecat'): string => {
  const apis = ofType('AWS::ApiGateway::RestApi').map(([id]) => id);
  expect(apis).toHaveLength(2);
  const found = apis.filter((id) => id.startsWith(key === 'service' ? 'ApiRestApi' : 'ApiRevenueCatRestApi'));
  expect(found, key).toHaveLength(1);
  return found[0]!;
};
/** The REST API a route is served by. */
const restApiIdOfRoute = (route: { path: string }) =>
  restApiIdOf(isRevenueCatPath(route.path) ? 'revenuecat' : 'service');
/** The logical id of a REST API's one stage. */
const stageOf = (restApiId: string): string => {
  const stages = ofType('AWS::ApiGateway::Stage').filter(
    ([, stage]) => refOf(stage.Properties.RestApiId) === restApiId,
  );
  expect(stages, restApiId).toHaveLength(1);
  return stages[0]![0];
};
/** A REST API's gateway responses, by type. */
const gatewayResponsesOf = (restApiId: string): Map<string, Resource> =>
  new Map(
    ofType('AWS::ApiGateway::GatewayResponse')
      .filter(([, r]) => refOf(r.Properties.RestApiId) === restApiId)
      .map(([, r]) => [r.Properties.ResponseType as string, r]),
  );

/** `METHOD path` of each route a function serves: the description the api construct gives it. */
const routesOfFunction = (fn: Resource): string[] => String(fn.Properties.Description).split(', ');

/** The Lambda function of a route: found by the description the api construct gives it. */
function functionOf(route: (typeof ROUTES)[number]): [string, Resource] {
  const found = ofType('AWS::Lambda::Function').filter(([, r]) =>
    routesOfFunction(r).includes(`${route.method} ${route.path}`),
  );
  expect(found, `${route.method} ${route.path}`).toHaveLength(1);
  return found[0]!;
}

type Statement = { Effect: string; Action: string | string[]; Resource: unknown; [other: string]: unknown };

/** Every statement of the policies attached to this function's role. */
function statementsOf(functionId: string): Statement[] {
  const role = refOf(resources[functionId]!.Properties.Role);
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as unknown[]).some((r) => refOf(r) === role))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
}

/** Every action the role of this function may perform, from all policies attached to it. */
const actionsOf = (functionId: string): string[] => statementsOf(functionId).flatMap((s) => [s.Action].flat());

/** A CloudFormation value as text: `<LogicalId>` for a Ref, `<LogicalId.Attribute>` for a GetAtt, joins joined. */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as { Ref?: string; 'Fn::GetAtt'?: string[]; 'Fn::Join'?: [string, unknown[]] };
  if (v.Ref) return `<${v.Ref}>`;
  if (v['Fn::GetAtt']) return `<${v['Fn::GetAtt'].join('.')}>`;
  if (v['Fn::Join']) return v['Fn::Join'][1].map(render).join(v['Fn::Join'][0]);
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/** Everything this function's role allows, one `action on resource` per pair. */
function permissionsOf(functionId: string): string[] {
  return statementsOf(functionId).flatMap((s) => {
    // Plain allow statements only: no Deny, NotAction, NotResource or Condition to reason about.
    expect(Object.keys(s).sort(), functionId).toEqual(['Action', 'Effect', 'Resource']);
    expect(s.Effect).toBe('Allow');
    return [s.Action]
      .flat()
      .flatMap((action) => [s.Resource].flat().map((resource) => `${action} on ${render(resource)}`));
  });
}

describe('the CDK stack', () => {
  it('has one function per handler module, behind the API Gateway method of each of its routes with a Lambda proxy integration', () => {
    const routeFunctions = ofType('AWS::Lambda::Function').filter(([, r]) =>
      ROUTES.some((route) => routesOfFunction(r).includes(`${route.method} ${route.path}`)),
    );
    expect(routeFunctions).toHaveLength(endpointFunctions().length);
    for (const fn of endpointFunctions()) {
      const [functionId, resource] = functionOf(fn.routes[0]!);
      expect(functionId.startsWith(fn.name), fn.name).toBe(true);
      expect(routesOfFunction(resource)).toEqual(fn.routes.map((route) => `${route.method} ${route.path}`));
      for (const route of fn.routes) expect(functionOf(route)[0], route.name).toBe(functionId);
      // One method per route integrated with it (the permission test below ties each to its path).
      const methods = ofType('AWS::ApiGateway::Method').filter(([, m]) =>
        JSON.stringify(m.Properties.Integration?.Uri ?? '').includes(functionId),
      );
      expect(methods.map(([, m]) => m.Properties.HttpMethod).sort(), fn.name).toEqual(
        fn.routes.map((route) => route.method).sort(),
      );
      for (const [, method] of methods) expect(method.Properties.Integration.Type).toBe('AWS_PROXY');
    }
  });

  it('deploys 64 functions, 64 bundles and 64 roles: the V1 and V2 paths of a mobile endpoint are one function', () => {
    const functions = ofType('AWS::Lambda::Function');
    // 59 handler modules of lib/routes.ts and the 5 event and job functions.
    expect(functions).toHaveLength(64);
    expect(new Set(functions.map(([, fn]) => JSON.stringify(fn.Properties.Code))).size).toBe(64);
    expect(new Set(functions.map(([, fn]) => refOf(fn.Properties.Role))).size).toBe(64);
    expect(ofType('AWS::IAM::Role')).toHaveLength(64);
    for (const path of [
      '/users/report/events',
      '/users/customer_info',
      '/sessions/report',
      '/order/report',
      '/conversion/report',
      '/report/global_switch',
      '/report/{type}',
      '/users/attribute/update',
    ]) {
      const [v1, v2] = [path, `/v2${path}`].map((p) => ROUTES.find((route) => route.path === p)!);
      expect(functionOf(v2!)[0], v2!.name).toBe(functionOf(v1!)[0]);
    }
  });

  it('lets API Gateway invoke each function from the stage method of each of its routes', () => {
    const permissions = ofType('AWS::Lambda::Permission').map(([, p]) => p.Properties);
    // Each REST API's one stage, by its name: the permissions are in the nested stacks, which the stage depends on.
    for (const key of ['service', 'revenuecat'] as const)
      expect(resources[stageOf(restApiIdOf(key))]!.Properties.StageName).toBe(STAGE_NAME);
    for (const route of ROUTES) {
      const [functionId] = functionOf(route);
      const restApiId = restApiIdOfRoute(route);
      // API Gateway's source ARN names the method, a path parameter as `*`.
      const source = `/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}`;
      const granted = permissions.filter(
        (p) =>
          refOf(p.FunctionName) === functionId &&
          p.Principal === 'apigateway.amazonaws.com' &&
          p.Action === 'lambda:InvokeFunction' &&
          render(p.SourceArn) ===
            `arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${restApiId}>/${STAGE_NAME}${source}`,
      );
      expect(granted, `${route.method} ${route.path}`).toHaveLength(1);
    }
  });

  it('takes store notifications without an API key: each notification method has its function, no authorizer, no key', () => {
    const notifications = ROUTES.filter((route) => route.api === 'notifications');
    expect(notifications.map((route) => `${route.method} ${route.path}`).sort()).toEqual([
      'POST /notifications/app-store/{app_id}',
      'POST /notifications/google-play/{app_id}',
      'POST /notifications/test-store/{app_id}',
    ]);
    const methodOf = (route: (typeof ROUTES)[number]) => {
      const [functionId, fn] = functionOf(route);
      expect(fn.Properties.Handler).toBe('index.handler');
      return ofType('AWS::ApiGateway::Method').filter(
        ([, m]) =>
          m.Properties.HttpMethod === route.method &&
          JSON.stringify(m.Properties.Integration?.Uri ?? '').includes(functionId),
      )[0]![1].Properties;
    };
    // As every other route: the handler authenticates (here the notification itself), not API Gateway.
    for (const route of ROUTES) {
      const method = methodOf(route);
      expect({ route: route.name, auth: method.AuthorizationType, key: method.ApiKeyRequired ?? false }).toEqual({
        route: route.name,
        auth: 'NONE',
        key: false,
      });
    }
    for (const route of notifications) {
      const [, fn] = functionOf(route);
      expect(fn.Properties.Description).toBe(`POST ${route.path}`);
      expect(methodOf(route).Integration.Type).toBe('AWS_PROXY');
    }
  });

  it('answers a method a route path does not serve with 405 METHOD_NOT_ALLOWED and Allow, in its API envelope, from a MOCK (no function)', () => {
    const resourcePath = (resourceId: string): string => {
      const resource = resources[resourceId];
      if (resource?.Type !== 'AWS::ApiGateway::Resource') return '';
      return `${resourcePath(refOf(resource.Properties.ParentId) ?? '')}/${resource.Properties.PathPart}`;
    };
    const anyMethods = new Map(
      ofType('AWS::ApiGateway::Method')
        .filter(([, m]) => m.Properties.HttpMethod === 'ANY')
        .map(([, m]) => [resourcePath(refOf(m.Properties.ResourceId)!), m.Properties] as const),
    );
    const paths = [...new Set(ROUTES.map((r) => r.path))];
    expect([...anyMethods.keys()].sort()).toEqual(paths.sort());
    const expectations: [string, string, unknown][] = [
      [
        `${SUBSCRIPTIONS_BASE}/verify`,
        "'POST'",
        { error: { code: 'METHOD_NOT_ALLOWED', message: ERRORS.METHOD_NOT_ALLOWED.message } },
      ],
      [
        `${SUBSCRIPTIONS_BASE}/products`,
        "'GET'",
        { error: { code: 'METHOD_NOT_ALLOWED', message: ERRORS.METHOD_NOT_ALLOWED.message } },
      ],
      [
        `${SUBSCRIPTIONS_BASE}/revenue`,
        "'GET'",
        { error: { code: 'METHOD_NOT_ALLOWED', message: ERRORS.METHOD_NOT_ALLOWED.message } },
      ],
      [
        `${SUBSCRIPTIONS_BASE}/{subscription_id}`,
        "'GET, PUT'",
        { error: { code: 'METHOD_NOT_ALLOWED', message: ERRORS.METHOD_NOT_ALLOWED.message } },
      ],
      [
        '/report/global_switch',
        "'POST'",
        { status: 'error', code: 'METHOD_NOT_ALLOWED', message: ERRORS.METHOD_NOT_ALLOWED.message },
      ],
      [
        '/segment/info',
        "'GET'",
        { status: 'error', code: 'METHOD_NOT_ALLOWED', message: ERRORS.METHOD_NOT_ALLOWED.message },
      ],
    ];
    for (const [path, allow, body] of expectations) {
      const method = anyMethods.get(path)!;
      expect(method, path).toBeDefined();
      expect(method.Integration).toMatchObject({
        Type: 'MOCK',
        PassthroughBehavior: 'NEVER',
        ContentHandling: 'CONVERT_TO_TEXT',
      });
      expect(method.Integration.RequestTemplates['application/json']).toBe('{"statusCode": 405}');
      const [response] = method.Integration.IntegrationResponses;
      expect(response.StatusCode).toBe('405');
      expect(response.SelectionPattern).toBeUndefined();
      expect(response.ResponseParameters).toEqual({
        'method.response.header.Allow': allow,
        'method.response.header.Content-Type': "'application/json; charset=utf-8'",
        'method.response.header.X-Request-Id': 'context.requestId',
      });
      expect(JSON.parse(response.ResponseTemplates['application/json']), path).toEqual(body);
      expect(method.MethodResponses).toEqual([
        {
          StatusCode: '405',
          ResponseParameters: {
            'method.response.header.Allow': true,
            'method.response.header.Content-Type': true,
            'method.response.header.X-Request-Id': true,
          },
        },
      ]);
    }
  });

  it("gives every route's function the one endpoint timeout the local gateway enforces", () => {
    for (const route of ROUTES)
      expect(functionOf(route)[1].Properties.Timeout, route.name).toBe(ENDPOINT_TIMEOUT_SECONDS);
  });

  it('passes every request body to the functions as bytes (base64), so they, not API Gateway, judge its UTF-8', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
  });

  it('creates the resource path of every route', () => {
    const parts = new Set(ofType('AWS::ApiGateway::Resource').map(([, r]) => r.Properties.PathPart));
    for (const route of ROUTES) for (const part of route.path.split('/').filter(Boolean)) expect(parts).toContain(part);
  });

  it('runs every function on Node.js 24, arm64, without reading its source map at cold start', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.Runtime, id).toBe('nodejs24.x');
      expect(fn.Properties.Architectures, id).toEqual(['arm64']);
      // Stack traces are mapped when first formatted (lib/core/stack-traces.ts, test/integration/bundle.test.ts).
      expect(fn.Properties.Environment?.Variables?.NODE_OPTIONS, id).toBeUndefined();
    }
  });

  it("gives every mobile route's function the deployed report quotas and retention, and no other function", () => {
    for (const route of ROUTES) {
      const variables = functionOf(route)[1].Properties.Environment.Variables;
      const expected =
        route.api === 'mobile'
          ? {
              REPORT_EVENTS_PER_APP_PER_MINUTE: '10000',
              REPORT_STORED_BYTES_PER_APP: '107374182400',
              REPORT_TYPES_PER_USER: '32',
              EVENT_RETENTION_DAYS: '90',
            }
          : {};
      const reportVariables = Object.fromEntries(
        Object.entries(variables).filter(([name]) => name.startsWith('REPORT_') || name === 'EVENT_RETENTION_DAYS'),
      );
      expect(reportVariables, route.name).toEqual(expected);
    }
  });

  it("gives every route's function the deployed per-key rate limits: 200 a minute standard, 2,000 premium (README, Rate limits)", () => {
    for (const route of ROUTES) {
      const [functionId, fn] = functionOf(route);
      const variables = fn.Properties.Environment.Variables;
      expect(variables.RATE_LIMIT_STANDARD_PER_MINUTE, route.name).toBe('200');
      expect(variables.RATE_LIMIT_PREMIUM_PER_MINUTE, route.name).toBe('2000');
      // The store call budget's defaults (docs/security.md#outbound-store-calls).
      expect(variables.STORE_CALL_BURST, route.name).toBe('60');
      expect(variables.STORE_CALLS_PER_MINUTE, route.name).toBe('120');
      expect(variables.STORE_UNKNOWN_TTL_SECONDS, route.name).toBe('600');
      // The limiter counts in the key's item; RevenueCat's health check, sent without a key, touches no item.
      if (route.table.length > 0) expect(actionsOf(functionId)).toContain('dynamodb:UpdateItem');
      else expect(actionsOf(functionId).filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
    }
  });

  it('names the table to every function that may touch it', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const touchesTable = actionsOf(id).some((a) =>
        ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'].includes(a),
      );
      if (touchesTable) expect(fn.Properties.Environment.Variables.TABLE_NAME, id).toBeDefined();
    }
  });

  it('gives every function of the table the one store expiry margin (writers file due items by it, the sweeper expires by it)', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const variables = fn.Properties.Environment.Variables;
      if (variables.TABLE_NAME === undefined) continue;
      expect(variables.STORE_EXPIRY_MARGIN_SECONDS, id).toBe('3600');
      expect(variables.WEBHOOK_DELIVERY_RETENTION_DAYS, id).toBe('30');
    }
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
    const indexes = table.Properties.GlobalSecondaryIndexes as {
      IndexName: IndexName;
      KeySchema: { AttributeName: string }[];
      Projection: { ProjectionType: string; NonKeyAttributes?: string[] };
    }[];
    expect(indexes.map((i) => i.IndexName).sort()).toEqual(Object.keys(TABLE.indexes).sort());
    for (const index of indexes) {
      expect(index.KeySchema.map((k) => k.AttributeName)).toEqual([
        TABLE.indexes[index.IndexName]!.partitionKey,
        TABLE.indexes[index.IndexName]!.sortKey,
      ]);
      expect(index.Projection).toEqual(projectionOf(TABLE.indexes[index.IndexName]!));
    }
    // Only the webhook deliveries' index copies whole items: a subscription write rewrites key-only entries.
    expect(indexes.filter((i) => i.Projection.ProjectionType === 'ALL').map((i) => i.IndexName)).toEqual([
      'deliveriesByApp',
    ]);
  });

  it('keeps the table when the stack is deleted', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it("grants each route's function exactly the DynamoDB actions of the written-out table (test/support/grants.ts)", () => {
    expect(ROUTES.map((route) => route.name).sort()).toEqual(Object.keys(ROUTE_GRANTS).sort());
    // A function serving several routes (V1 and V2) gets what each of them needs, and no more.
    for (const route of ROUTES) {
      const [functionId] = functionOf(route);
      const dynamoActions = actionsOf(functionId).filter((a) => a.startsWith('dynamodb:'));
      expect(new Set(dynamoActions), route.name).toEqual(
        new Set((ROUTE_GRANTS[route.name]!.table ?? []).map((a) => `dynamodb:${a}`)),
      );
    }
  });

  it('answers gateway-level errors with JSON envelopes (404 unknown route, 401, 429 throttled)', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      StatusCode: '401',
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'THROTTLED',
      StatusCode: '429',
    });
  });

  it('gives every gateway error a body that is valid JSON once API Gateway substitutes it, in both envelopes', () => {
    const bodies = new Map(
      [...gatewayResponsesOf(restApiIdOf('service'))].map(([type, r]) => [
        type,
        r.Properties.ResponseTemplates['application/json'] as string,
      ]),
    );
    for (const type of [
      'DEFAULT_4XX',
      'DEFAULT_5XX',
      'UNAUTHORIZED',
      'THROTTLED',
      'ACCESS_DENIED',
      'MISSING_AUTHENTICATION_TOKEN',
    ]) {
      expect([...bodies.keys()]).toContain(type);
    }
    for (const [type, body] of bodies) {
      // What API Gateway does: $context.error.messageString becomes a quoted string, $context.requestId a bare id.
      const substituted = body
        .replaceAll('$context.error.messageString', JSON.stringify('Too Many Requests'))
        .replaceAll('$context.requestId', 'req-1');
      const parsed = JSON.parse(substituted) as {
        error: { code: string; message: string };
        status: string;
        code: string;
        message: string;
      };
      expect(parsed.error, type).toMatchObject({ code: expect.any(String), message: 'Too Many Requests' });
      expect(parsed, type).toMatchObject({ status: 'error', code: parsed.error.code, message: 'Too Many Requests' });
    }
    expect(
      JSON.parse(
        bodies
          .get('DEFAULT_5XX')!
          .replaceAll('$context.error.messageString', '"x"')
          .replaceAll('$context.requestId', 'req-1'),
      ),
    ).toMatchObject({
      code: 'INTERNAL_ERROR',
      request_id: 'req-1',
      error: { code: 'INTERNAL_ERROR', request_id: 'req-1' },
    });
  });

  it("answers RevenueCat's dialect's gateway errors in its envelope, a throttled receipt as 503 with Retry-After", () => {
    const service = gatewayResponsesOf(restApiIdOf('service'));
    const revenuecat = gatewayResponsesOf(restApiIdOf('revenuecat'));
    expect([...revenuecat.keys()].sort()).toEqual([...service.keys()].sort());
    const substitute = (r: Resource) =>
      JSON.parse(
        (r.Properties.ResponseTemplates['application/json'] as string)
          .replaceAll('$context.error.messageString', JSON.stringify('Too Many Requests'))
          .replaceAll('$context.requestId', 'req-1'),
      ) as Record<string, unknown>;
    for (const [type, response] of revenuecat) {
      // RevenueCat's {code, message} with its numeric code (lib/domain/revenuecat-errors.ts), ours in `error`.
      expect(substitute(response), type).toMatchObject({ code: expect.any(Number), message: 'Too Many Requests' });
      expect(response.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin'], type).toBe(
        "'*'",
      );
    }
    expect(substitute(revenuecat.get('MISSING_AUTHENTICATION_TOKEN')!)).toEqual({
      code: revenuecatRefusalOf(new AppError('ROUTE_NOT_FOUND')).code,
      message: 'Too Many Requests',
      error: 'ROUTE_NOT_FOUND',
    });
    expect(revenuecat.get('MISSING_AUTHENTICATION_TOKEN')!.Properties.StatusCode).toBe('404');
    expect(revenuecat.get('UNAUTHORIZED')!.Properties.StatusCode).toBe('401');
    // Any 4xx to POST /v1/receipts makes the SDKs finish the purchase: a throttle is "later", not "never".
    for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) {
      const throttled = revenuecat.get(type)!;
      expect(throttled.Properties.StatusCode, type).toBe('503');
      expect(throttled.Properties.ResponseParameters['gatewayresponse.header.Retry-After'], type).toBe("'1'");
      expect(service.get(type)!.Properties.StatusCode, type).toBe('429');
    }
    expect(substitute(revenuecat.get('DEFAULT_5XX')!)).toMatchObject({ request_id: 'req-1' });
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX'])
      expect(revenuecat.get(type)!.Properties.StatusCode, type).toBeUndefined();
  });

  it('keeps the status API Gateway gives unmatched 4xx/5xx errors (only their body is replaced)', () => {
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      const response = gatewayResponsesOf(restApiIdOf('service')).get(type)!;
      expect(response.Properties.StatusCode, type).toBeUndefined();
    }
  });

  it('logs failed requests at each stage, never whole requests (data tracing), into log groups it creates with a retention', () => {
    for (const key of ['service', 'revenuecat'] as const) {
      const apiId = restApiIdOf(key);
      expect(resources[stageOf(apiId)]!.Properties.MethodSettings, key).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            HttpMethod: '*',
            ResourcePath: '/*',
            LoggingLevel: 'ERROR',
            DataTraceEnabled: false,
          }),
        ]),
      );
      expect(resources[stageOf(apiId)]!.Properties.AccessLogSetting, key).toBeDefined();
      template.hasResourceProperties('AWS::Logs::LogGroup', {
        LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, '/prod']] },
        RetentionInDays: 30,
      });
    }
  });

  it('grants no test-invoke permissions (the API Gateway console test button): half the Lambda permissions', () => {
    // Each stack's room under CloudFormation's quotas is test/cdk/quotas.test.ts's.
    for (const [id, permission] of ofType('AWS::Lambda::Permission')) {
      expect(JSON.stringify(permission.Properties.SourceArn ?? ''), id).not.toContain('test-invoke-stage');
    }
  });

  it('outputs the API URL and the table name', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('TableName', {});
  });
});

describe('the stack and its nested stacks', () => {
  const parentResources = () => assembly.stacks[0]!.template.Resources;

  it('keeps the stateful resources in the parent stack under the logical ids a deployed stack has', () => {
    // Changing one of these would make CloudFormation replace it: the table (data), the queues (what
    // waits there), the bus (operators' rules), the alarm topic (subscriptions), the console's bucket
    // and distribution (its origin is in the API's CORS).
    const stateful = Object.entries(parentResources())
      .filter(([, r]) =>
        [
          'AWS::DynamoDB::Table',
          'AWS::SQS::Queue',
          'AWS::Events::EventBus',
          'AWS::SNS::Topic',
          'AWS::S3::Bucket',
          'AWS::CloudFront::Distribution',
          'AWS::ApiGateway::RestApi',
        ].includes(r.Type),
      )
      .map(([id]) => id)
      .sort();
    expect(stateful).toEqual(
      [
        'DataTableFDBAD0F2',
        'NotificationsWebhookDeadLetters702479AA',
        'NotificationsStreamFailuresD13580C0',
        'NotificationsRuleTargetFailures0AB55100',
        'NotificationsAggregatorFailuresE0418D2E',
        'NotificationsBusD6EAAED1',
        'NotificationsAlarms3ED26F66',
        'ConsoleFiles2D43986C',
        'ConsoleDistribution022D3262',
        'PaywallsFilesC28619AD',
        'ApiRestApiE35FEAFE',
        'ApiRevenueCatRestApi1D95CC96',
      ].sort(),
    );
    // The stream consumers keep their event source mappings: a new one would read the stream again from its start.
    expect(ofType('AWS::Lambda::EventSourceMapping').every(([id]) => id in parentResources())).toBe(true);
  });

  it('has every output on the parent stack, where DescribeStacks of SubscriptionBackend reads them', () => {
    // cli/stack-outputs.ts, README.md and docs/operations.md name these.
    expect(Object.keys(assembly.stacks[0]!.template.Outputs ?? {}).sort()).toEqual(
      [
        'AlarmTopicArn',
        'ApiRestApiEndpoint4DEFB5CC',
        'ApiRevenueCatRestApiEndpoint47A32020',
        'ApiUrl',
        'RevenueCatApiUrl',
        'ConsoleUrl',
        'EventBusName',
        STORE_SECRETS_PREFIX_OUTPUT,
        PAYWALLS_BUCKET_OUTPUT,
        'TableName',
        'WebhookDeadLetterQueueUrl',
      ].sort(),
    );
  });

  it('serves the routes from one nested stack per API surface, each function in the stack of its paths', () => {
    const surfaces = routesBySurface(ROUTES);
    const nested = assembly.stacks.filter((s) => s.nested);
    expect(nested.map((s) => s.path)).toEqual(
      [...surfaces].filter(([, routes]) => routes.length > 0).map(([surface]) => `Test/Api/${surface.id}`),
    );
    for (const [surface, routes] of surfaces) {
      const stackResources = nested.find((s) => s.path === `Test/Api/${surface.id}`)!.template.Resources;
      for (const route of routes) expect(stackResources[functionOf(route)[0]], route.name).toBeDefined();
    }
    // Nothing of a route in the parent: no function but the notification path's and CDK's uploader, no method.
    expect(Object.values(parentResources()).filter((r) => r.Type === 'AWS::ApiGateway::Method')).toEqual([]);
    expect(
      Object.entries(parentResources())
        .filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && !CONSOLE_UPLOADER.test(id))
        .map(([, r]) => r.Properties!.Description),
    ).toEqual(Object.keys(WORKER_GRANTS));
  });

  it('deploys each REST API after every nested stack of its routes, as a deployment whose logical id changes with any of its methods', () => {
    const nestedStackIds = Object.entries(parentResources())
      .filter(([, r]) => r.Type === 'AWS::CloudFormation::Stack')
      .map(([id]) => id);
    expect(nestedStackIds).toHaveLength(assembly.stacks.length - 1);
    type Deployed = { Type: string; Properties?: Record<string, unknown>; DependsOn?: unknown };
    const deploymentsOf = (resources: Record<string, Deployed>) =>
      new Map(
        Object.entries(resources)
          .filter(([, r]) => r.Type === 'AWS::ApiGateway::Deployment')
          .map(([id, r]) => [refOf(r.Properties!.RestApiId)!, { id, dependsOn: (r.DependsOn ?? []) as string[] }]),
      );
    const deployments = deploymentsOf(parentResources());
    expect([...deployments.keys()].sort()).toEqual([restApiIdOf('service'), restApiIdOf('revenuecat')].sort());
    const revenuecatStack = nestedStackIds.filter((id) => /^ApiRevenueCat(App)?Api/.test(id));
    expect(revenuecatStack).toHaveLength(2);
    expect(deployments.get(restApiIdOf('revenuecat'))!.dependsOn).toEqual(expect.arrayContaining(revenuecatStack));
    expect(deployments.get(restApiIdOf('service'))!.dependsOn).toEqual(
      expect.arrayContaining(nestedStackIds.filter((id) => !revenuecatStack.includes(id))),
    );
    // A route fewer is another snapshot of its REST API: CloudFormation then creates a new
    // deployment, and the stage moves to it; the other REST API's deployment stays.
    const fewer = deploymentsOf(
      synthesizeAssembly({ routes: ROUTES.filter((route) => route.name !== 'SegmentInfo'), validate: false }).stacks[0]!
        .template.Resources,
    );
    expect(fewer.get(restApiIdOf('service'))!.id).not.toBe(deployments.get(restApiIdOf('service'))!.id);
    expect(fewer.get(restApiIdOf('revenuecat'))!.id).toBe(deployments.get(restApiIdOf('revenuecat'))!.id);
    const same = deploymentsOf(synthesizeAssembly({ validate: false }).stacks[0]!.template.Resources);
    for (const [api, deployment] of deployments) expect(same.get(api)!.id, api).toBe(deployment.id);
  });

  it('passes a nested stack only what it shares with the parent: the REST API and its shared paths, the table, the console origin', () => {
    for (const { path, template: nested } of assembly.stacks.filter((s) => s.nested)) {
      expect(Object.keys(nested.Outputs ?? {}), path).toEqual([]);
      const names = Object.keys(nested.Parameters ?? {}).map((name) => name.replace(/^referencetoTest/, ''));
      for (const name of names)
        expect(name, path).toMatch(
          /^(DataTable\w+(Arn|Ref)|Api(RevenueCat)?RestApi\w+(Ref|RootResourceId)|Api(RevenueCat)?RestApiv[12]\w+Ref|ConsoleDistribution\w+DomainName)$/,
        );
    }
  });
});

describe("AWS WAF in front of the REST APIs' stages", () => {
  it("by default: a REGIONAL web ACL allowing by default: per IP 2,000 per 5 minutes except on store notification routes, which count per IP and route (10,000), both answering 429 RATE_LIMITED, and RevenueCat's dialect, per IP, answering 503", () => {
    const acls = ofType('AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const acl = acls[0]![1].Properties;
    expect(acl.Scope).toBe('REGIONAL');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    const notificationRoute = {
      RegexMatchStatement: {
        RegexString: notificationPathPattern(),
        FieldToMatch: { UriPath: {} },
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    };
    const revenuecatRoute = {
      RegexMatchStatement: {
        RegexString: revenuecatPathPattern(),
        FieldToMatch: { UriPath: {} },
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    };
    const block = { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'RateLimited' } } };
    expect(acl.Rules).toEqual([
      {
        Name: 'PerIpRateLimit',
        Priority: 0,
        Statement: {
          RateBasedStatement: {
            Limit: 2000,
            EvaluationWindowSec: 300,
            AggregateKeyType: 'IP',
            ScopeDownStatement: {
              NotStatement: { Statement: { OrStatement: { Statements: [notificationRoute, revenuecatRoute] } } },
            },
          },
        },
        Action: block,
        VisibilityConfig: {
          CloudWatchMetricsEnabled: true,
          MetricName: 'subscription-backend-per-ip-rate-limit',
          SampledRequestsEnabled: true,
        },
      },
      {
        Name: 'NotificationsPerIpAndRoute',
        Priority: 1,
        Statement: {
          RateBasedStatement: {
            Limit: 10_000,
            EvaluationWindowSec: 300,
            AggregateKeyType: 'CUSTOM_KEYS',
            CustomKeys: [{ IP: {} }, { UriPath: { TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
            ScopeDownStatement: notificationRoute,
          },
        },
        Action: block,
        VisibilityConfig: {
          CloudWatchMetricsEnabled: true,
          MetricName: 'subscription-backend-notifications-rate-limit',
          SampledRequestsEnabled: true,
        },
      },
      {
        Name: 'RevenueCatPerIpRateLimit',
        Priority: 2,
        Statement: {
          RateBasedStatement: {
            Limit: 2000,
            EvaluationWindowSec: 300,
            AggregateKeyType: 'IP',
            ScopeDownStatement: revenuecatRoute,
          },
        },
        // Any 4xx to POST /v1/receipts makes the SDKs finish the purchase: a 503 keeps it for a retry.
        Action: {
          Block: {
            CustomResponse: {
              ResponseCode: 503,
              CustomResponseBodyKey: 'RevenueCatRateLimited',
            },
          },
        },
        VisibilityConfig: {
          CloudWatchMetricsEnabled: true,
          MetricName: 'subscription-backend-revenuecat-per-ip-rate-limit',
          SampledRequestsEnabled: true,
        },
      },
    ]);
    // The monthly bill (bench/cost-model.ts) prices each rule.
    expect(acl.Rules).toHaveLength(WAF_RULES);
    expect(JSON.parse(acl.CustomResponseBodies.RevenueCatRateLimited.Content)).toEqual({
      code: revenuecatRefusalOf(new AppError('RATE_LIMITED', '', { retryable: true })).code,
      message: expect.stringContaining('2000 in 5 minutes'),
      error: 'RATE_LIMITED',
    });
    // The refusal in both APIs' envelopes, as API Gateway's own 429 (THROTTLED) answers.
    const body = acl.CustomResponseBodies.RateLimited;
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toEqual({
      error: { code: 'RATE_LIMITED', message: expect.stringContaining('2000 in 5 minutes'), retryable: true },
      status: 'error',
      code: 'RATE_LIMITED',
      message: expect.stringContaining('2000 in 5 minutes'),
      retryable: true,
    });
  });

  it("associates the web ACL with both REST APIs' stages", () => {
    const associations = ofType('AWS::WAFv2::WebACLAssociation').map(([, a]) => a.Properties);
    expect(associations).toHaveLength(2);
    for (const association of associations)
      expect(association.WebACLArn).toEqual({ 'Fn::GetAtt': [ofType('AWS::WAFv2::WebACL')[0]![0], 'Arn'] });
    const stages = (['service', 'revenuecat'] as const).map((key) => stageOf(restApiIdOf(key)));
    expect(
      associations.map((a) => stages.find((stage) => JSON.stringify(a.ResourceArn).includes(`"${stage}"`))),
    ).toEqual(stages);
  });

  it("the dialect's pattern matches exactly RevenueCat's routes, with or without the stage name", () => {
    const pattern = new RegExp(revenuecatPathPattern());
    for (const route of ROUTES) {
      const path = route.path.replace(/\{[^}]+\}/g, 'x');
      expect(pattern.test(path), path).toBe(isRevenueCatPath(route.path));
      expect(pattern.test(`/prod${path}`), path).toBe(isRevenueCatPath(route.path));
    }
    expect(pattern.test('/v1/subscriptions')).toBe(false);
    expect(pattern.test('/v1/subscribersx')).toBe(false);
  });

  it('takes the limits from -c wafRateLimit=… and -c wafNotificationRateLimit=…, refusing what WAF would not accept', () => {
    const custom = synthesize({ wafRateLimit: '6000', wafNotificationRateLimit: '50000' });
    custom.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: [
        Match.objectLike({ Statement: { RateBasedStatement: Match.objectLike({ Limit: 6000 }) } }),
        Match.objectLike({ Statement: { RateBasedStatement: Match.objectLike({ Limit: 50000 }) } }),
        Match.objectLike({ Statement: { RateBasedStatement: Match.objectLike({ Limit: 6000 }) } }),
      ],
    });
    for (const name of ['wafRateLimit', 'wafNotificationRateLimit']) {
      for (const bad of ['5', 'lots', '1.5']) {
        expect(() => synthesize({ [name]: bad }), bad).toThrow(new RegExp(`${name} must be a whole number from 10`));
      }
    }
  });

  it("the notification rule's pattern matches exactly the store notification routes, with or without the stage name", () => {
    const pattern = new RegExp(notificationPathPattern());
    const notificationPaths = ROUTES.filter((r) => r.api === 'notifications').map((r) =>
      r.path.replace('{app_id}', 'app_0123456789abcdef'),
    );
    expect(notificationPaths.length).toBeGreaterThanOrEqual(3);
    for (const path of notificationPaths) {
      expect(pattern.test(path), path).toBe(true);
      expect(pattern.test(`/prod${path}`), path).toBe(true);
      expect(pattern.test(`/other${path}`), path).toBe(false);
      expect(pattern.test(`${path}/more`), path).toBe(false);
    }
    for (const route of ROUTES.filter((r) => r.api !== 'notifications')) {
      const path = route.path.replace(/\{[^}]+\}/g, 'x');
      expect(pattern.test(path) || pattern.test(`/prod${path}`), path).toBe(false);
    }
  });

  it('with -c waf=false: no web ACL and no association (the stage throttle stays)', () => {
    const off = synthesize({ waf: 'false' });
    off.resourceCountIs('AWS::WAFv2::WebACL', 0);
    off.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
    off.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
      ]),
    });
  });

  it("with -c webAclArn=…: the operator's web ACL is associated instead, and none is created", () => {
    const webAclArn = 'arn:aws:wafv2:eu-west-1:111111111111:regional/webacl/subscriptions/0b1c2d3e';
    const operator = synthesize({ webAclArn });
    operator.resourceCountIs('AWS::WAFv2::WebACL', 0);
    operator.resourceCountIs('AWS::WAFv2::WebACLAssociation', 2);
    for (const association of Object.values(operator.findResources('AWS::WAFv2::WebACLAssociation')))
      expect(association.Properties.WebACLArn).toBe(webAclArn);
  });
});

describe('the notification path in the stack', () => {
  const functionByDescription = (description: string): [string, Resource] => {
    const found = ofType('AWS::Lambda::Function').filter(([, r]) => r.Properties.Description === description);
    expect(found, description).toHaveLength(1);
    return found[0]!;
  };
  const tableActions = (functionId: string) => new Set(actionsOf(functionId).filter((a) => a.startsWith('dynamodb:')));

  it('has its own event bus and a rule for every event kind targeting the webhook deliverer, with a DLQ', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    const [delivererId] = functionByDescription('EventBridge rule target: Standard Webhooks delivery');
    const rules = ofType('AWS::Events::Rule').filter(
      ([, r]) => r.Properties.EventPattern?.['detail-type']?.[0] === 'subscription.status_changed',
    );
    expect(rules).toHaveLength(1);
    const rule = rules[0]![1].Properties;
    expect(rule.EventPattern).toEqual({
      source: ['subscription-backend'],
      'detail-type': [
        'subscription.status_changed',
        'subscription.transferred',
        'subscription.renewed',
        'subscription.auto_renew_changed',
        'subscription.billing_issue',
        'subscription.refunded',
        'subscription.refund_reversed',
        'subscription.product_changed',
        'entitlement.granted',
        'entitlement.revoked',
        'entitlement.expired',
      ],
    });
    expect(refOf(rule.EventBusName)).toBeDefined();
    expect(JSON.stringify(rule.Targets[0].Arn)).toContain(delivererId);
    expect(rule.Targets[0].DeadLetterConfig).toBeDefined();
    expect(rule.Targets[0].RetryPolicy).toMatchObject({ MaximumRetryAttempts: 8 });
  });

  it('feeds the publisher from the table stream, filtered to writes that announce events, reporting failures per record', () => {
    const [publisherId] = functionByDescription('table stream (announced events) -> EventBridge');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: publisherId },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      FilterCriteria: { Filters: PUBLISHED_STREAM_FILTERS.map((filter) => ({ Pattern: JSON.stringify(filter) })) },
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
    expect(actionsOf(publisherId)).toContain('events:PutEvents');
    // Only the stream (granted by the event source), nothing on the table itself.
    expect([...tableActions(publisherId)].sort()).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
    ]);
    expect(resources[publisherId]!.Properties.Environment.Variables.EVENT_BUS_NAME).toBeDefined();
  });

  it('feeds the aggregator from the same stream, filtered to subscription items, with the shard id and a DLQ', () => {
    const [aggregatorId] = functionByDescription(
      'table stream (subscription writes) -> list counts, revenue counters, history',
    );
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: aggregatorId },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 1000,
      MaximumBatchingWindowInSeconds: 1,
      // Only a tumbling window makes Lambda name the shard in the event: the exactly-once markers need it.
      TumblingWindowInSeconds: 900,
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(AGGREGATED_STREAM_FILTER) }] },
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
    expect([...tableActions(aggregatorId)].sort()).toEqual([
      // History entries are put in batches.
      'dynamodb:BatchWriteItem',
      'dynamodb:DescribeStream',
      'dynamodb:GetItem',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
      'dynamodb:UpdateItem',
    ]);
    // The two consumers AWS recommends at most per table stream.
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
  });

  it('runs the expiry sweeper and the webhook retries every minute', () => {
    for (const description of [
      'every minute: expiries and pause ends that are due',
      'every minute: webhook deliveries whose next try is due',
    ]) {
      const [jobId] = functionByDescription(description);
      const schedules = ofType('AWS::Events::Rule').filter(
        ([, r]) =>
          r.Properties.ScheduleExpression === 'rate(1 minute)' && JSON.stringify(r.Properties.Targets).includes(jobId),
      );
      expect(schedules, description).toHaveLength(1);
    }
  });

  it('sends exhausted webhook events to an SQS dead-letter queue that an alarm watches', () => {
    const [delivererId] = functionByDescription('EventBridge rule target: Standard Webhooks delivery');
    const queueUrl = resources[delivererId]!.Properties.Environment.Variables.DEAD_LETTER_QUEUE_URL;
    const queueId = refOf(queueUrl)!;
    expect(resources[queueId]!.Type).toBe('AWS::SQS::Queue');
    expect(actionsOf(delivererId)).toContain('sqs:SendMessage');
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) =>
      JSON.stringify(a.Properties.Dimensions).includes(queueId),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      AlarmActions: [expect.anything()],
    });
  });

  it('outputs the bus name for operators to attach their own rules', () => {
    template.hasOutput('EventBusName', {});
  });
});

describe('store credentials in the stack', () => {
  it('only the functions asking a store or signing with its key may read store secrets, only under the stack prefix, and only read them', () => {
    const readers = ofType('AWS::Lambda::Function').filter(([id]) =>
      actionsOf(id).some((a) => a.startsWith('secretsmanager:')),
    );
    const verifying = ROUTES.filter((route) => ROUTE_GRANTS[route.name]?.storeSecrets).map(
      (route) => `${route.method} ${route.path}`,
    );
    expect(verifying.sort()).toEqual([
      'POST /dingyue/receipt/verify/first',
      'POST /dingyue/receipt/verify/recover',
      'POST /notifications/google-play/{app_id}',
      'POST /receipt/verify/first',
      'POST /receipt/verify/recover',
      // Signs App Store promotional offers with the app's In-App Purchase key.
      'POST /v1/offers',
      'POST /v1/receipts',
      'POST /v1/subscriptions/verify',
    ]);
    // The sweeper asks the store before it expires a subscription the store may have renewed.
    const sweeper = 'every minute: expiries and pause ends that are due';
    // A function's description lists the routes it serves (a DingYue call's, beside the route it mirrors).
    const served = readers.flatMap(([, r]) => String(r.Properties.Description).split(', '));
    expect(served.sort()).toEqual([...verifying, sweeper].sort());
    expect(readers).toHaveLength(7);
    for (const [id, fn] of readers) {
      expect(actionsOf(id).filter((a) => a.startsWith('secretsmanager:'))).toEqual(['secretsmanager:GetSecretValue']);
      expect(fn.Properties.Environment.Variables.STORE_SECRETS_PREFIX).toBe('subscription-backend/Test/');
    }
    const statement = ofType('AWS::IAM::Policy')
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .find((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'));
    const resources = JSON.stringify(statement!.Resource);
    expect(resources).toContain(':secret:subscription-backend/Test/*/app_store-??????');
    expect(resources).toContain(':secret:subscription-backend/Test/*/google_play-??????');
    // The test store's signing key is the operator CLI's: no function may read it.
    expect(resources).not.toContain('test_store');
    expect(resources).not.toMatch(/Test\/\*"/);
    template.hasOutput('StoreSecretsPrefix', {});
  });
});

describe('least privilege: every IAM permission in the stack is accounted for', () => {
  /** Resource `*` only for these actions: AWS offers no resource-level permission for them. */
  const ANY_RESOURCE: Record<string, string> = {
    'xray:PutTraceSegments': 'active tracing; X-Ray has no resource-level permissions',
    'xray:PutTelemetryRecords': 'active tracing; X-Ray has no resource-level permissions',
    'dynamodb:ListStreams':
      'the stream event sources of the publisher and the aggregator; ListStreams has no resource-level permissions',
  };
  /**
   * The one other wildcard: store credentials get a random ARN suffix and are created per app at
   * run time; only the two stores' secrets, never the test store's signing key (`.../test_store`).
   */
  const STORE_SECRETS = ['app_store', 'google_play'].map(
    (store) =>
      `arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:subscription-backend/Test/*/${store}-??????`,
  );

  /**
   * Every function by its description: routes' by their `METHOD path`s, workers' by their own. A
   * function serving several routes needs what each of them does: their written-out grants must agree.
   */
  const needsOf = new Map<string, Grants>([
    ...endpointFunctions().map((fn): [string, Grants] => {
      const [needs, ...others] = fn.routes.map((route) => ROUTE_GRANTS[route.name] ?? {});
      for (const other of others) expect(other, fn.name).toEqual(needs);
      return [fn.routes.map((route) => `${route.method} ${route.path}`).join(', '), needs!];
    }),
    ...Object.entries(WORKER_GRANTS),
  ]);

  const onlyId = (type: string, prefix: string): string => {
    const found = ofType(type).filter(([id]) => id.startsWith(prefix));
    expect(found, `${type} ${prefix}`).toHaveLength(1);
    return found[0]![0];
  };

  function expectedPermissions(functionId: string, needs: Grants): string[] {
    const table = onlyId('AWS::DynamoDB::Table', 'Data');
    const logGroup = refOf(resources[functionId]!.Properties.LoggingConfig.LogGroup)!;
    return [
      'xray:PutTraceSegments on *',
      'xray:PutTelemetryRecords on *',
      // Its own log group only (the group exists already: no logs:CreateLogGroup).
      `logs:CreateLogStream on <${logGroup}.Arn>`,
      `logs:PutLogEvents on <${logGroup}.Arn>`,
      ...(needs.table ?? []).map((action) => `dynamodb:${action} on <${table}.Arn>`),
      ...(needs.table?.includes('Query')
        ? Object.keys(TABLE.indexes).map((index) => `dynamodb:Query on <${table}.Arn>/index/${index}`)
        : []),
      ...(needs.storeSecrets ? STORE_SECRETS.map((secrets) => `secretsmanager:GetSecretValue on ${secrets}`) : []),
      ...(needs.putEvents ? [`events:PutEvents on <${onlyId('AWS::Events::EventBus', 'NotificationsBus')}.Arn>`] : []),
      ...(needs.streamRead
        ? [
            ...['DescribeStream', 'GetRecords', 'GetShardIterator'].map(
              (action) => `dynamodb:${action} on <${table}.StreamArn>`,
            ),
            'dynamodb:ListStreams on *',
          ]
        : []),
      ...(needs.sendsTo
        ? [`sqs:SendMessage on <${onlyId('AWS::SQS::Queue', `Notifications${needs.sendsTo}`)}.Arn>`]
        : []),
    ];
  }

  it('allows each function exactly what it declares: its table actions (Query alone on the indexes, by name), store secrets, the bus, its dead-letter queue, X-Ray and its log group', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(needsOf.size);
    for (const [id, fn] of functions) {
      const needs = needsOf.get(fn.Properties.Description as string);
      expect(needs, `${id} (${fn.Properties.Description}) declares nothing`).toBeDefined();
      // Declarations may repeat an action (AUTH and TRANSACT both have UpdateItem): compared as sets.
      expect(permissionsOf(id).sort(), fn.Properties.Description).toEqual(
        [...new Set(expectedPermissions(id, needs!))].sort(),
      );
    }
  });

  it('has no wildcard action, and a wildcard resource only where named above', () => {
    for (const [id, policy] of ofType('AWS::IAM::Policy')) {
      for (const statement of policy.Properties.PolicyDocument.Statement as Statement[]) {
        for (const action of [statement.Action].flat()) {
          expect(action, id).not.toContain('*');
          for (const resource of [statement.Resource].flat().map(render)) {
            if (resource === '*') expect(Object.keys(ANY_RESOURCE), `${action} on * in ${id}`).toContain(action);
            else if (resource.includes('*'))
              expect(
                STORE_SECRETS.map((secrets) => `secretsmanager:GetSecretValue on ${secrets}`),
                id,
              ).toContain(`${action} on ${resource}`);
          }
        }
      }
    }
  });

  it("has no role but the functions' (Lambda only, no managed policy), every policy belongs to a function, and leaves the account's API Gateway settings alone", () => {
    const functionRoles = new Set(ofType('AWS::Lambda::Function').map(([, fn]) => refOf(fn.Properties.Role)));
    const others = ofType('AWS::IAM::Role').filter(([id]) => !functionRoles.has(id));
    for (const id of functionRoles) {
      const role = resources[id!]!.Properties;
      expect(role.AssumeRolePolicyDocument.Statement, id).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
      expect(role.ManagedPolicyArns, id).toBeUndefined();
      expect(role.Policies, id).toBeUndefined();
    }
    // No AWS::ApiGateway::Account: it would replace the CloudWatch role the account already has.
    expect(others.map(([id]) => id)).toEqual([]);
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    for (const [id, policy] of ofType('AWS::IAM::Policy')) {
      const roles = (policy.Properties.Roles as unknown[]).map(refOf);
      expect(roles, id).toHaveLength(1);
      expect(functionRoles, id).toContain(roles[0]);
    }
    template.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
    template.resourceCountIs('AWS::IAM::User', 0);
  });

  it("with -c apiGatewayCloudWatchRole=true, sets the account's API Gateway logging role (retained), and that is the only other role", () => {
    const withRole = synthesize({ apiGatewayCloudWatchRole: 'true' });
    const all = withRole.toJSON().Resources as Record<string, Resource & { DeletionPolicy?: string }>;
    const functionRoles = new Set(
      Object.values(all)
        .filter((r) => r.Type === 'AWS::Lambda::Function')
        .map((fn) => refOf(fn.Properties.Role)),
    );
    const others = Object.entries(all).filter(([id, r]) => r.Type === 'AWS::IAM::Role' && !functionRoles.has(id));
    expect(others).toHaveLength(1);
    const [roleId, role] = others[0]!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' } },
    ]);
    expect(role.Properties.ManagedPolicyArns.map(render)).toEqual([
      'arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
    ]);
    const accounts = Object.values(all).filter((r) => r.Type === 'AWS::ApiGateway::Account');
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.Properties).toEqual({ CloudWatchRoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] } });
    expect(accounts[0]!.DeletionPolicy).toBe('Retain');
  });
});

describe('secrets in the stack', () => {
  /** Environment variable names a function may have: configuration and where things are, never a secret. */
  const ENVIRONMENT = new Set([
    'NODE_OPTIONS',
    'TABLE_NAME',
    'EVENT_BUS_NAME',
    'DEAD_LETTER_QUEUE_URL',
    'STORE_SECRETS_PREFIX',
    'STORE_EXPIRY_MARGIN_SECONDS',
    'WEBHOOK_DELIVERY_RETENTION_DAYS',
    'CONSOLE_ORIGINS',
    'PAYWALLS_BASE_URL',
    // RATE_LIMIT_STANDARD_PER_MINUTE, RATE_LIMIT_PREMIUM_PER_MINUTE
    ...RATE_LIMIT_TIERS.map(rateLimitVariable),
    'STORE_CALL_BURST',
    'STORE_CALLS_PER_MINUTE',
    'STORE_UNKNOWN_TTL_SECONDS',
    // REPORT_EVENTS_PER_APP_PER_MINUTE, REPORT_STORED_BYTES_PER_APP, REPORT_TYPES_PER_USER (mobile routes)
    ...Object.values(REPORT_QUOTA_VARIABLES),
    'EVENT_RETENTION_DAYS',
  ]);
  /** Our key formats (sk_, pk_, whsec_), PEM keys, a CloudFormation secret reference, long base64. */
  const looksSecret = (text: string): boolean =>
    /whsec_|\b(sk|pk)_[A-Za-z0-9]|PRIVATE KEY|\{\{resolve:|[A-Za-z0-9+/]{32,}={0,2}/.test(text);

  /** The literal strings of a CloudFormation value; a reference must not name a Secrets Manager secret. */
  function literals(value: unknown): string[] {
    if (typeof value === 'string') return [value];
    if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
    const v = value as { Ref?: string; 'Fn::GetAtt'?: string[]; 'Fn::Join'?: [string, unknown[]] };
    const referenced = v.Ref ?? v['Fn::GetAtt']?.[0];
    if (referenced) {
      expect(resources[referenced]?.Type ?? 'pseudo parameter', referenced).not.toBe('AWS::SecretsManager::Secret');
      return [];
    }
    if (v['Fn::Join']) return v['Fn::Join'][1].flatMap(literals);
    throw new Error(`unexpected environment value ${JSON.stringify(value)}`);
  }

  it('recognises what a secret looks like', () => {
    for (const secret of [
      'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
      'pk_x1',
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      '-----BEGIN PRIVATE KEY-----',
      '{{resolve:secretsmanager:x}}',
      'dGhpcyBpcyBhIHZlcnkgbG9uZyBzZWNyZXQgdmFsdWU=',
    ]) {
      expect(looksSecret(secret), secret).toBe(true);
    }
    for (const plain of [
      '--enable-source-maps',
      'subscription-backend/Test/',
      '200',
      'https://sqs.eu-west-1.amazonaws.com/1/q',
      'task_queue',
    ])
      expect(looksSecret(plain), plain).toBe(false);
  });

  it('keeps secrets out of every environment variable: allowed names only, no secret-looking value, no secret reference', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const variables = (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
      for (const [name, value] of Object.entries(variables)) {
        expect(ENVIRONMENT, `${id} ${name}`).toContain(name);
        for (const literal of literals(value)) expect(looksSecret(literal), `${id} ${name}=${literal}`).toBe(false);
      }
    }
  });

  it('creates no secret and no SSM parameter: store credentials are written at run time, webhook secrets live in the table', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    template.resourceCountIs('AWS::SSM::Parameter', 0);
  });
});

/** A bucket no one outside reads or writes but through its policy, encrypted by S3. */
function expectPrivateEncrypted(bucket: Resource): void {
  expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  });
  expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
    { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
  ]);
}

describe('the operator console in the stack', () => {
  const CSP_PREFIX =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src https://";
  const only = (type: string): [string, Resource] => {
    const found = ofType(type);
    expect(found, type).toHaveLength(1);
    return found[0]!;
  };
  const distributionId = () => only('AWS::CloudFront::Distribution')[0];
  /** The console's bucket (the other holds the paywall bundles). */
  const consoleBucket = (): [string, Resource] => {
    const found = ofType('AWS::S3::Bucket').filter(([id]) => id.startsWith('ConsoleFiles'));
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const consoleOrigin = () => ({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId(), 'DomainName'] }]] });

  it('keeps the files in a private, encrypted bucket that refuses plain HTTP', () => {
    const [bucketId, bucket] = consoleBucket();
    expectPrivateEncrypted(bucket);
    const policies = ofType('AWS::S3::BucketPolicy').filter(([, p]) => refOf(p.Properties.Bucket) === bucketId);
    expect(policies).toHaveLength(1);
    const statements = policies[0]![1].Properties.PolicyDocument.Statement as Statement[];
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    // Only CloudFront reads, through origin access control, and only this distribution.
    const reads = statements.filter((s) => s.Effect === 'Allow');
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({
      Action: 's3:GetObject',
      Principal: { Service: 'cloudfront.amazonaws.com' },
      Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
    });
    expect(JSON.stringify(reads[0]!.Condition)).toContain(distributionId());
  });

  it('serves them through CloudFront: origin access control, HTTPS only, the security headers', () => {
    const [, distribution] = only('AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig;
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    // The console's origin, and the paywall bundles' (the paywalls describe below).
    expect(config.Origins).toHaveLength(2);
    const consoleOriginConfig = config.Origins.find(
      (o: { Id: string }) => o.Id === config.DefaultCacheBehavior.TargetOriginId,
    );
    expect(JSON.stringify(consoleOriginConfig.DomainName)).toContain(consoleBucket()[0]);
    expect(consoleOriginConfig.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    const oacId = refOf(consoleOriginConfig.OriginAccessControlId)!;
    const oac = resources[oacId]!;
    expect(oac.Type).toBe('AWS::CloudFront::OriginAccessControl');
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const [policyId, policy] = only('AWS::CloudFront::ResponseHeadersPolicy');
    expect(refOf(config.DefaultCacheBehavior.ResponseHeadersPolicyId)).toBe(policyId);
    const security = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(security.ContentTypeOptions).toEqual({ Override: true });
    expect(security.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
    expect(security.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 31_536_000, Override: true });
    // connect-src is the service's API alone: its own execute-api host, from the RestApi's id.
    const csp = render(security.ContentSecurityPolicy.ContentSecurityPolicy);
    const restApiId = restApiIdOf('service');
    expect(csp).toBe(
      `${CSP_PREFIX}<${restApiId}>.execute-api.<AWS::Region>.<AWS::URLSuffix>; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
  });

  it('uploads the build with the API URL in index.html, and invalidates the distribution', () => {
    const [, deployment] = only('Custom::CDKBucketDeployment');
    expect(refOf(deployment.Properties.DestinationBucketName)).toBe(consoleBucket()[0]);
    expect(refOf(deployment.Properties.DistributionId)).toBe(distributionId());
    expect(deployment.Properties.DistributionPaths).toEqual(['/*']);
    // Source.data: index.html with the stage URL as a deploy-time marker.
    expect(JSON.stringify(deployment.Properties.SourceMarkers)).toContain(restApiIdOf('service'));
    expect(JSON.stringify(deployment.Properties.SourceMarkers)).not.toContain(restApiIdOf('revenuecat'));
    // The uploader may write this bucket and invalidate; S3 elsewhere only on the CDK assets bucket.
    const uploaderPolicies = Object.entries(resources).filter(
      ([id, r]) => r.Type === 'AWS::IAM::Policy' && CONSOLE_UPLOADER.test(id),
    );
    expect(uploaderPolicies).toHaveLength(1);
    const statements = uploaderPolicies[0]![1].Properties.PolicyDocument.Statement as Statement[];
    const resourcesOf = (prefix: string) =>
      statements
        .filter((s) => [s.Action].flat().some((a) => a.startsWith(prefix)))
        .flatMap((s) => [s.Resource].flat().map((r) => JSON.stringify(r)));
    for (const resource of resourcesOf('s3:'))
      expect(resource.includes(consoleBucket()[0]) || resource.includes('cdk-hnb659fds-assets')).toBe(true);
    expect(
      statements
        .flatMap((s) => [s.Action].flat())
        .filter((a) => a.startsWith('cloudfront:'))
        .sort(),
    ).toEqual(['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation']);
  });

  it("allows the console origin, and no other, in the subscription API's CORS (preflights, functions, gateway errors); any origin in RevenueCat's", () => {
    const subscriptionPaths = [...new Set(ROUTES.filter((r) => r.api === 'subscriptions').map((r) => r.path))];
    const revenuecatPaths = [...new Set(ROUTES.filter((r) => r.api === 'revenuecat').map((r) => r.path))];
    const allPreflights = ofType('AWS::ApiGateway::Method').filter(([, m]) => m.Properties.HttpMethod === 'OPTIONS');
    const originOf = (method: Resource) =>
      method.Properties.Integration.IntegrationResponses[0].ResponseParameters[
        'method.response.header.Access-Control-Allow-Origin'
      ];
    // RevenueCat's dialect: any origin, each header purchases-js sends named (lib/http/revenuecat.ts).
    const anyOrigin = allPreflights.filter(([, method]) => originOf(method) === "'*'");
    expect(anyOrigin).toHaveLength(revenuecatPaths.length);
    for (const [, method] of anyOrigin) {
      const answer = method.Properties.Integration.IntegrationResponses[0];
      expect(answer.StatusCode).toBe('204');
      expect(answer.ResponseParameters['method.response.header.Access-Control-Allow-Headers']).toBe(
        `'${REVENUECAT_CORS_ALLOWED_HEADERS.join(',')}'`,
      );
    }
    const preflights = allPreflights.filter(([, method]) => originOf(method) !== "'*'");
    expect(preflights).toHaveLength(subscriptionPaths.length);
    for (const [, method] of preflights) {
      const answer = method.Properties.Integration.IntegrationResponses[0];
      expect(answer.StatusCode).toBe('204');
      expect(answer.ResponseParameters['method.response.header.Access-Control-Allow-Origin']).toEqual({
        'Fn::Join': ['', ["'https://", { 'Fn::GetAtt': [distributionId(), 'DomainName'] }, "'"]],
      });
      expect(answer.ResponseParameters['method.response.header.Access-Control-Allow-Headers']).toBe(
        "'Authorization,Content-Type,If-None-Match'",
      );
    }
    for (const route of ROUTES) {
      const [id, fn] = functionOf(route);
      const origins = fn.Properties.Environment.Variables.CONSOLE_ORIGINS;
      if (route.api === 'subscriptions') expect(origins, id).toEqual(consoleOrigin());
      else expect(origins, id).toBeUndefined();
    }
    for (const response of gatewayResponsesOf(restApiIdOf('service')).values()) {
      expect(response.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toEqual({
        'Fn::Join': ['', ["'https://", { 'Fn::GetAtt': [distributionId(), 'DomainName'] }, "'"]],
      });
    }
  });

  it("maps both APIs at the root of -c apiDomainName on -c apiCertificateArn, RevenueCat's prefixes to its own; refuses half or malformed", () => {
    expect(ofType('AWS::ApiGateway::DomainName')).toEqual([]);
    expect(ofType('AWS::ApiGatewayV2::RoutingRule')).toEqual([]);
    const withDomain = synthesize({
      apiDomainName: 'api.example.com',
      apiCertificateArn: API_CERTIFICATE_ARN,
    }).toJSON();
    const entries = Object.entries(withDomain.Resources as Record<string, Resource>);
    const all = entries.map(([, r]) => r);
    const domains = entries.filter(([, r]) => r.Type === 'AWS::ApiGateway::DomainName');
    expect(domains.map(([, r]) => r.Properties)).toEqual([
      {
        DomainName: 'api.example.com',
        RegionalCertificateArn: API_CERTIFICATE_ARN,
        EndpointConfiguration: { Types: ['REGIONAL'] },
        SecurityPolicy: 'TLS_1_2',
        // Routing rules first, then the base path mapping.
        RoutingMode: 'ROUTING_RULE_THEN_BASE_PATH_MAPPING',
      },
    ]);
    const [domainId] = domains[0]!;
    const mappings = all.filter((r) => r.Type === 'AWS::ApiGateway::BasePathMapping');
    expect(mappings).toHaveLength(1);
    // No base path: the service's stage is the domain's root, where every path but the dialect's falls.
    expect(mappings[0]!.Properties.BasePath).toBeUndefined();
    expect(refOf(mappings[0]!.Properties.RestApiId)).toBe(restApiIdOf('service'));
    // One rule per prefix of the dialect, to its REST API with the path whole (SDKs send /v1/receipts, it serves /v1/receipts).
    const rules = all.filter((r) => r.Type === 'AWS::ApiGatewayV2::RoutingRule').map((r) => r.Properties);
    const revenuecatApi = entries.find(
      ([id, r]) => r.Type === 'AWS::ApiGateway::RestApi' && id.startsWith('ApiRevenueCat'),
    )!;
    expect(rules.map((rule) => rule.Conditions)).toEqual(
      REVENUECAT_PREFIXES.map((prefix) => [{ MatchBasePaths: { AnyOf: [prefix.slice(1)] } }]),
    );
    for (const rule of rules) {
      expect(rule.DomainNameArn).toEqual({ 'Fn::GetAtt': [domainId, 'DomainNameArn'] });
      expect(rule.Actions).toEqual([
        { InvokeApi: { ApiId: { Ref: revenuecatApi[0] }, Stage: STAGE_NAME, StripBasePath: false } },
      ]);
    }
    const priorities = rules.map((rule) => rule.Priority as number);
    expect(new Set(priorities).size).toBe(rules.length);
    // Every route of the dialect is under one of the rules' base paths, and no route of ours is.
    for (const route of ROUTES) {
      const segments = route.path.slice(1).split('/');
      const routed = rules.some((rule) => {
        const base = (rule.Conditions[0].MatchBasePaths.AnyOf[0] as string).split('/');
        return base.every((segment, i) => segments[i] === segment);
      });
      expect(routed, route.path).toBe(isRevenueCatPath(route.path));
    }
    expect(withDomain.Outputs.ApiDomainUrl.Value).toBe('https://api.example.com');
    expect(withDomain.Outputs.ApiDomainTarget.Value).toEqual({
      'Fn::GetAtt': [expect.any(String), 'RegionalDomainName'],
    });
    for (const context of [
      { apiDomainName: 'api.example.com' },
      { apiCertificateArn: API_CERTIFICATE_ARN },
      { apiDomainName: 'https://api.example.com', apiCertificateArn: API_CERTIFICATE_ARN },
      { apiDomainName: 'API.example.com', apiCertificateArn: API_CERTIFICATE_ARN },
      { apiDomainName: 'api.example.com', apiCertificateArn: 'arn:aws:iam::123456789012:role/x' },
    ])
      expect(() => synthesize(context), JSON.stringify(context)).toThrow(/^-c api(DomainName|CertificateArn) must be/);
  });

  it('adds the origins of -c consoleOrigins=… and refuses "*"', () => {
    const extra = synthesize({ consoleOrigins: 'https://console.example.com' });
    const fn = Object.entries(extra.toJSON().Resources as Record<string, Resource>).find(
      ([, r]) => r.Type === 'AWS::Lambda::Function' && routesOfFunction(r).includes(`GET ${SUBSCRIPTIONS_BASE}`),
    )!;
    expect(render(fn[1].Properties.Environment.Variables.CONSOLE_ORIGINS)).toMatch(
      /^https:\/\/<\w+\.DomainName>,https:\/\/console\.example\.com$/,
    );
    expect(() => synthesize({ consoleOrigins: '*' })).toThrow(/CONSOLE_ORIGINS must list origins/);
  });

  it('outputs the console URL', () => {
    template.hasOutput('ConsoleUrl', {
      Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId(), 'DomainName'] }, '/']] },
    });
  });
});

describe('the paywall bundles in the stack', () => {
  const paywallsBucket = (): [string, Resource] => {
    const found = ofType('AWS::S3::Bucket').filter(([id]) => id.startsWith('PaywallsFiles'));
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const distribution = () => {
    const found = ofType('AWS::CloudFront::Distribution');
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it('keeps them in a private, encrypted bucket of their own that refuses plain HTTP and outlives the stack', () => {
    const [bucketId, bucket] = paywallsBucket();
    expectPrivateEncrypted(bucket);
    expect(bucket.DeletionPolicy).toBe('Retain');
    const policies = ofType('AWS::S3::BucketPolicy').filter(([, p]) => refOf(p.Properties.Bucket) === bucketId);
    expect(policies).toHaveLength(1);
    const statements = policies[0]![1].Properties.PolicyDocument.Statement as Statement[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    // CloudFront of this distribution reads; nothing else is allowed anything.
    const allowed = statements.filter((s) => s.Effect === 'Allow');
    expect(allowed).toHaveLength(1);
    expect(allowed[0]).toMatchObject({ Action: 's3:GetObject', Principal: { Service: 'cloudfront.amazonaws.com' } });
    expect(JSON.stringify(allowed[0]!.Condition)).toContain(distribution()[0]);
    // The console's deployment (which prunes) never writes this bucket.
    const [, deployment] = ofType('Custom::CDKBucketDeployment')[0]!;
    expect(refOf(deployment.Properties.DestinationBucketName)).not.toBe(bucketId);
  });

  it(`serves ${PAYWALLS_PREFIX}/* from that bucket through origin access control, HTTPS only, with the security headers`, () => {
    const [bucketId] = paywallsBucket();
    const config = distribution()[1].Properties.DistributionConfig;
    const behaviors = config.CacheBehaviors as Record<string, any>[];
    expect(behaviors.map((b) => b.PathPattern)).toEqual([`${PAYWALLS_PREFIX}/*`]);
    const [behavior] = behaviors;
    expect(behavior!.ViewerProtocolPolicy).toBe('https-only');
    expect(behavior!.ResponseHeadersPolicyId).toEqual(config.DefaultCacheBehavior.ResponseHeadersPolicyId);
    const origin = config.Origins.find((o: { Id: string }) => o.Id === behavior!.TargetOriginId);
    expect(JSON.stringify(origin.DomainName)).toContain(bucketId);
    expect(resources[refOf(origin.OriginAccessControlId)!]!.Type).toBe('AWS::CloudFront::OriginAccessControl');
  });

  it('tells every route function where bundles are downloaded, and the CLI which bucket takes them', () => {
    const expected = {
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution()[0], 'DomainName'] }, `/${PAYWALLS_PREFIX}`]],
    };
    for (const route of ROUTES) {
      const [id, fn] = functionOf(route);
      expect(fn.Properties.Environment.Variables.PAYWALLS_BASE_URL, id).toEqual(expected);
    }
    const outputs = assembly.stacks[0]!.template.Outputs as Record<string, { Value: unknown }>;
    expect(outputs[PAYWALLS_BUCKET_OUTPUT]!.Value).toEqual({ Ref: paywallsBucket()[0] });
  });
});

describe('what the stack lets callers make it spend', () => {
  /** The stage's method settings of one route (ResourcePath is the path with each / as ~1). */
  const methodSettingOf = (t: Template, route: (typeof ROUTES)[number]) => {
    // The stage of the route's REST API: a method setting names a path of its own API.
    const stage = Object.entries(t.toJSON().Resources as Record<string, Resource>).find(
      ([id, r]) =>
        r.Type === 'AWS::ApiGateway::Stage' &&
        id.startsWith(isRevenueCatPath(route.path) ? 'ApiRevenueCatRestApi' : 'ApiRestApi'),
    )![1];
    return (stage.Properties.MethodSettings as Record<string, unknown>[]).find(
      (m) => m.HttpMethod === route.method && m.ResourcePath === `/${route.path.replaceAll('/', '~1')}`,
    );
  };

  it('gives the store notification routes and the routes that call a store limits of their own; the rest share the stage default', () => {
    const kinds = new Map<RouteThrottleKind, string[]>();
    for (const route of ROUTES) {
      const kind = routeThrottleKind(route);
      const setting = methodSettingOf(template, route);
      if (!kind) {
        expect(setting, route.name).toBeUndefined();
        continue;
      }
      kinds.set(kind, [...(kinds.get(kind) ?? []), route.name]);
      expect(setting, route.name).toEqual({
        HttpMethod: route.method,
        ResourcePath: `/${route.path.replaceAll('/', '~1')}`,
        ThrottlingRateLimit: ROUTE_THROTTLE_DEFAULTS[kind].rate,
        ThrottlingBurstLimit: ROUTE_THROTTLE_DEFAULTS[kind].burst,
        // A method setting replaces the stage's: never data tracing there either.
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
      });
    }
    expect(kinds.get('notifications')).toEqual([
      'AppStoreNotification',
      'GooglePlayNotification',
      'TestStoreNotification',
    ]);
    expect(kinds.get('store_calls')).toEqual([
      'VerifyPurchase',
      'VerifyFirstReceipt',
      'RecoverReceipt',
      'RevenueCatPostOffers',
      'RevenueCatPostReceipt',
      'DingYueVerifyFirstReceipt',
      'DingYueRecoverReceipt',
    ]);
    expect(ROUTE_THROTTLE_DEFAULTS).toEqual({
      notifications: { rate: 200, burst: 400 },
      store_calls: { rate: 20, burst: 40 },
    });
  });

  it('takes each kind of limit from its context value, refusing what API Gateway would not accept', () => {
    const custom = synthesize({
      [ROUTE_THROTTLE_CONTEXT.notifications.rate]: '500',
      [ROUTE_THROTTLE_CONTEXT.notifications.burst]: '900',
      [ROUTE_THROTTLE_CONTEXT.store_calls.rate]: '5',
      [ROUTE_THROTTLE_CONTEXT.store_calls.burst]: '7',
    });
    const byName = (name: string) => ROUTES.find((r) => r.name === name)!;
    expect(methodSettingOf(custom, byName('GooglePlayNotification'))).toMatchObject({
      ThrottlingRateLimit: 500,
      ThrottlingBurstLimit: 900,
    });
    expect(methodSettingOf(custom, byName('VerifyFirstReceipt'))).toMatchObject({
      ThrottlingRateLimit: 5,
      ThrottlingBurstLimit: 7,
    });
    for (const bad of ['0', 'many', '2.5']) {
      expect(() => synthesize({ storeCallsThrottleRate: bad }), bad).toThrow(
        /storeCallsThrottleRate must be a whole number/,
      );
    }
  });

  it('caps the on-demand table and each of its indexes at a maximum throughput (1,000 writes, 3,000 reads per second by default)', () => {
    const [, table] = ofType('AWS::DynamoDB::Table')[0]!;
    const cap = { MaxWriteRequestUnits: 1000, MaxReadRequestUnits: 3000 };
    expect(DEFAULT_MAX_REQUEST_UNITS).toEqual({ write: 1000, read: 3000 });
    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Properties.OnDemandThroughput).toEqual(cap);
    const indexes = table.Properties.GlobalSecondaryIndexes as Record<string, unknown>[];
    expect(indexes).toHaveLength(Object.keys(TABLE.indexes).length);
    for (const index of indexes) expect(index.OnDemandThroughput, String(index.IndexName)).toEqual(cap);

    const custom = synthesize({ tableMaxWriteRequestUnits: '2000', tableMaxReadRequestUnits: '8000' });
    const [, customTable] = Object.entries(custom.toJSON().Resources as Record<string, Resource>).find(
      ([, r]) => r.Type === 'AWS::DynamoDB::Table',
    )!;
    expect(customTable.Properties.OnDemandThroughput).toEqual({
      MaxWriteRequestUnits: 2000,
      MaxReadRequestUnits: 8000,
    });
    for (const bad of ['0', 'unlimited', '-1']) {
      expect(() => synthesize({ tableMaxWriteRequestUnits: bad }), bad).toThrow(
        /tableMaxWriteRequestUnits must be a whole number from 1 to 40000/,
      );
    }
  });

  it('reserves concurrency for the webhook deliverer (10 by default, -c webhookDelivererConcurrency=N or =unreserved)', () => {
    const deliverer = (t: Template) =>
      Object.values(t.toJSON().Resources as Record<string, Resource>).find(
        (r) =>
          r.Type === 'AWS::Lambda::Function' &&
          r.Properties.Description === 'EventBridge rule target: Standard Webhooks delivery',
      )!;
    expect(DEFAULT_WEBHOOK_DELIVERER_CONCURRENCY).toBe(10);
    expect(deliverer(template).Properties.ReservedConcurrentExecutions).toBe(10);
    expect(deliverer(synthesize({ webhookDelivererConcurrency: '25' })).Properties.ReservedConcurrentExecutions).toBe(
      25,
    );
    expect(
      deliverer(synthesize({ webhookDelivererConcurrency: 'unreserved' })).Properties.ReservedConcurrentExecutions,
    ).toBeUndefined();
    expect(() => synthesize({ webhookDelivererConcurrency: '0' })).toThrow(
      /webhookDelivererConcurrency must be a whole number/,
    );
    // No other function reserves any: the account's unreserved pool serves them.
    const reserving = ofType('AWS::Lambda::Function').filter(([, r]) => r.Properties.ReservedConcurrentExecutions);
    expect(reserving).toHaveLength(1);
  });
});
