/**
 * API Gateway (REST API) with one method per row of lib/routes.ts, and one Lambda function per
 * handler module, integrated with the methods of all its rows (the V1 and V2 paths of a mobile
 * endpoint). Each function may perform exactly the DynamoDB actions its routes declare, on the
 * table and its indexes.
 */
import { CfnOutput, Duration } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ContentHandling,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { config, REPORT_QUOTA_VARIABLES, rateLimitVariable } from '../../lib/core/config.js';
import { AppError } from '../../lib/core/errors.js';
import { RATE_LIMIT_TIERS } from '../../lib/domain/rate-limit.js';
import {
  CORS_ALLOWED_HEADERS,
  CORS_ALLOWED_METHODS,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_SECONDS,
} from '../../lib/http/cors.js';
import { errorBody } from '../../lib/http/envelopes.js';
import { ENDPOINT_TIMEOUT_SECONDS, endpointFunctions, ROUTES, type Route } from '../../lib/routes.js';
import { acknowledge } from './acknowledge.js';
import { wholeNumberContext } from './context.js';
import { ServiceFunction } from './service-function.js';

/**
 * Errors API Gateway answers itself (before any function runs: unknown route, throttling, a
 * future usage-plan key check). The gateway does not know which of the two APIs a request was
 * meant for, and the two have different error envelopes, so the one body carries both:
 * `{error: {code, message}}` (subscription API) and `{status: "error", code, message}` (mobile
 * API). Clients of either read their own keys and ignore the others.
 *
 * `$context.error.messageString` is substituted already quoted (`"Missing Authentication Token"`),
 * so it goes into the template unquoted; a quoted placeholder would produce `""..""`, invalid JSON.
 * `$context.requestId` is the id API Gateway writes to the access log.
 */
const MESSAGE = '__GATEWAY_MESSAGE__';
const gatewayErrorTemplate = (code: string, withRequestId: boolean): string =>
  JSON.stringify({
    error: { code, message: MESSAGE, ...(withRequestId ? { request_id: '$context.requestId' } : {}) },
    status: 'error',
    code,
    message: MESSAGE,
    ...(withRequestId ? { request_id: '$context.requestId' } : {}),
  }).replaceAll(`"${MESSAGE}"`, '$context.error.messageString');

export const STAGE_NAME = 'prod';

/**
 * API Gateway applies a stage's throttle to each method on its own (one token bucket per method,
 * shared by every app): the `-c apiThrottleRate/apiThrottleBurst` default. Two kinds of route get
 * limits of their own (a method setting each):
 * - store notifications: the stores post every tenant's notifications to one method per store, so
 *   they get room of their own, sized for the stores' bursts (renewals come in waves);
 * - routes that call a store (they read its credentials): each request can wait on the store up
 *   to the function's timeout, so the rate bounds those functions' concurrency (rate x 10 s) and
 *   the store API calls of all apps together.
 */
export type RouteThrottleKind = 'notifications' | 'store_calls';
export const ROUTE_THROTTLE_DEFAULTS: Readonly<Record<RouteThrottleKind, { rate: number; burst: number }>> = {
  notifications: { rate: 200, burst: 400 },
  store_calls: { rate: 20, burst: 40 },
};
/** The context names of each kind's limits: `-c notificationsThrottleRate=…`, `-c storeCallsThrottleBurst=…`. */
export const ROUTE_THROTTLE_CONTEXT: Readonly<Record<RouteThrottleKind, { rate: string; burst: string }>> = {
  notifications: { rate: 'notificationsThrottleRate', burst: 'notificationsThrottleBurst' },
  store_calls: { rate: 'storeCallsThrottleRate', burst: 'storeCallsThrottleBurst' },
};

/** Which limits of their own a route gets, if any. */
export function routeThrottleKind(route: Route): RouteThrottleKind | undefined {
  if (route.api === 'notifications') return 'notifications';
  return route.storeSecrets ? 'store_calls' : undefined;
}

/** What API Gateway accepts as a method's rate (requests per second) and burst. */
const THROTTLE_RANGE = [1, 10_000] as const;

/**
 * Content types whose request body the 405 answer's mapping template accepts. A mapping template
 * cannot be chosen by a wildcard, and without one a MOCK integration has no status to answer; any
 * other content type is refused by API Gateway with 415 (DEFAULT_4XX). No Content-Type counts as
 * application/json.
 */
export const METHOD_NOT_ALLOWED_CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/octet-stream',
];

export class Api extends Construct {
  readonly restApi: RestApi;
  readonly functions: Map<string, ServiceFunction> = new Map();

  constructor(
    scope: Construct,
    id: string,
    props: {
      table: Table;
      storeSecretsPrefix: string;
      routes?: readonly Route[];
      /** Origins whose pages may call the subscription API (CORS): the console's first. Never `*`. */
      browserOrigins?: readonly string[];
    },
  ) {
    super(scope, id);
    // API Gateway writes access and execution logs with one role per account and region (its
    // account settings). Creating it here (an AWS::ApiGateway::Account, retained) would replace the
    // role the account already has, so it is opt-in, for an account that has none yet:
    // -c apiGatewayCloudWatchRole=true.
    const cloudWatchRole = String(this.node.tryGetContext('apiGatewayCloudWatchRole') ?? 'false') === 'true';
    const routeList = props.routes ?? ROUTES;
    const limitsOf = (kind: RouteThrottleKind) => ({
      throttlingRateLimit: wholeNumberContext(
        this.node,
        ROUTE_THROTTLE_CONTEXT[kind].rate,
        ROUTE_THROTTLE_DEFAULTS[kind].rate,
        THROTTLE_RANGE,
      ),
      throttlingBurstLimit: wholeNumberContext(
        this.node,
        ROUTE_THROTTLE_CONTEXT[kind].burst,
        ROUTE_THROTTLE_DEFAULTS[kind].burst,
        THROTTLE_RANGE,
      ),
    });
    // `<resource path>/<METHOD>`, as a stage's method settings name a method. A method setting
    // replaces the stage's for that method: it repeats the logging settings.
    const methodOptions = Object.fromEntries(
      routeList.flatMap((route) => {
        const kind = routeThrottleKind(route);
        if (!kind) return [];
        const settings = { ...limitsOf(kind), loggingLevel: MethodLoggingLevel.ERROR, dataTraceEnabled: false };
        return [[`${route.path}/${route.method}`, settings]];
      }),
    );
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: 'subscription-backend',
      description: 'Subscription management API (/v1/subscriptions) and mobile reporting API',
      // Every body reaches the functions as its bytes (base64), so they refuse what is not UTF-8
      // instead of receiving it with U+FFFD in place of the bad bytes (lib/http/parse.ts).
      binaryMediaTypes: ['*/*'],
      cloudWatchRole,
      deployOptions: {
        stageName: STAGE_NAME,
        tracingEnabled: true,
        // A stage-wide flood guard in front of every function (the per-key and per-user limits are
        // enforced in the handlers, per IP by WAF: ./waf.ts); size it for all apps together:
        // -c apiThrottleRate=… -c apiThrottleBurst=…
        throttlingRateLimit: Number(this.node.tryGetContext('apiThrottleRate') ?? 100),
        throttlingBurstLimit: Number(this.node.tryGetContext('apiThrottleBurst') ?? 200),
        methodOptions,
        accessLogDestination: new LogGroupLogDestination(
          new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH }),
        ),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        // Execution logs of failed requests only. Never data tracing: it logs whole requests
        // and responses, i.e. API keys, receipts and emails.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
    });
    // API Gateway would create the execution log group itself, without a retention: create it first.
    const stage = this.restApi.deploymentStage;
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.restApi.restApiId}/${STAGE_NAME}`,
      retention: RetentionDays.ONE_MONTH,
    });
    stage.node.addDependency(executionLogs);
    if (cloudWatchRole) {
      acknowledge(this.restApi.node.findChild('CloudWatchRole'), {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "API Gateway's account-wide logging role (needed for access and execution logs); AWS documents this managed policy for it.",
      });
    }
    acknowledge(this.restApi, {
      id: 'AwsSolutions-APIG2',
      reason:
        "Every handler validates path, query and body with the zod schemas in lib/schemas and answers in its API's envelope with field paths; a gateway validator would duplicate them with a different error body.",
    });
    // [type, code, status]; no status for the DEFAULT_* catch-alls, so 403, 415, 502, 504...
    // keep the status API Gateway gives them and only the body becomes JSON.
    const responses: [ResponseType, string, string | undefined][] = [
      [ResponseType.MISSING_AUTHENTICATION_TOKEN, 'ROUTE_NOT_FOUND', '404'],
      [ResponseType.RESOURCE_NOT_FOUND, 'ROUTE_NOT_FOUND', '404'],
      [ResponseType.UNAUTHORIZED, 'INVALID_API_KEY', '401'],
      [ResponseType.ACCESS_DENIED, 'FORBIDDEN', '403'],
      [ResponseType.THROTTLED, 'RATE_LIMITED', '429'],
      [ResponseType.QUOTA_EXCEEDED, 'RATE_LIMITED', '429'],
      [ResponseType.REQUEST_TOO_LARGE, 'PAYLOAD_TOO_LARGE', '413'],
      [ResponseType.DEFAULT_4XX, 'INVALID_PARAMETER', undefined],
      [ResponseType.DEFAULT_5XX, 'INTERNAL_ERROR', undefined],
    ];
    const browserOrigins = props.browserOrigins ?? [];
    if (browserOrigins.includes('*')) throw new Error('the subscription API never allows every origin (CORS)');
    for (const [type, code, statusCode] of responses) {
      this.restApi.addGatewayResponse(`GatewayResponse${type.responseType}`, {
        type,
        ...(statusCode ? { statusCode } : {}),
        // The console reads the gateway's own refusals (a throttling 429) too. One static origin:
        // a gateway response cannot choose among several, and echoing the request's would allow any.
        ...(browserOrigins[0]
          ? {
              responseHeaders: {
                'Access-Control-Allow-Origin': `'${browserOrigins[0]}'`,
                'Access-Control-Expose-Headers': `'${CORS_EXPOSED_HEADERS.join(', ')}'`,
              },
            }
          : {}),
        templates: { 'application/json': gatewayErrorTemplate(code, type === ResponseType.DEFAULT_5XX) },
      });
    }

    // Per-key limits of each tier, as configured where `cdk deploy` runs (the same variables
    // and defaults the local gateway reads), so AWS and `npm start` enforce the same numbers.
    const rateLimitEnvironment = Object.fromEntries(
      RATE_LIMIT_TIERS.map((tier) => [rateLimitVariable(tier), String(config.rateLimits[tier])]),
    );
    // Each app's budget of store calls (docs/security.md#outbound-store-calls), as configured where `cdk deploy` runs.
    const storeCallEnvironment = {
      STORE_CALL_BURST: String(config.storeCallBudget.burst),
      STORE_CALLS_PER_MINUTE: String(config.storeCallBudget.perMinute),
      STORE_UNKNOWN_TTL_SECONDS: String(config.storeUnknownTtlSeconds),
    };
    // The mobile reports' per-app quotas and retention, likewise as configured where `cdk deploy` runs.
    const reportEnvironment = {
      ...Object.fromEntries(
        Object.entries(REPORT_QUOTA_VARIABLES).map(([quota, name]) => [
          name,
          String(config.reportQuotas[quota as keyof typeof REPORT_QUOTA_VARIABLES]),
        ]),
      ),
      EVENT_RETENTION_DAYS: String(config.eventRetentionDays),
    };
    // Routes of one handler module have the same grants (endpointFunctions checks), so the first declares them.
    for (const { name, handler, routes } of endpointFunctions(props.routes ?? ROUTES)) {
      const [first] = routes as [Route];
      const fn = new ServiceFunction(this, name, {
        handlerModule: handler,
        description: routes.map((route) => `${route.method} ${route.path}`).join(', '),
        timeout: Duration.seconds(ENDPOINT_TIMEOUT_SECONDS),
        environment: {
          ...rateLimitEnvironment,
          ...storeCallEnvironment,
          ...(first.api === 'mobile' ? reportEnvironment : {}),
          ...(first.api === 'subscriptions' && browserOrigins.length > 0
            ? { CONSOLE_ORIGINS: browserOrigins.join(',') }
            : {}),
        },
      }).useTable(props.table, first.table);
      if (first.storeSecrets) fn.useStoreSecrets(props.storeSecretsPrefix);
      // One integration for all the function's methods; it grants API Gateway invoke per method.
      // No test-invoke permission per method (the API Gateway console's test button): half the
      // Lambda permissions, and the template stays well under CloudFormation's 500 resources.
      const integration = new LambdaIntegration(fn, { allowTestInvoke: false });
      for (const route of routes) {
        const method = this.restApi.root.resourceForPath(route.path).addMethod(route.method, integration);
        const reason =
          route.api === 'notifications'
            ? 'A store posts here without a key: the handler verifies the notification itself (App Store and test store: its signature chain; Google Play: the Google-signed OIDC token of the Pub/Sub push) and re-reads Google.'
            : `The handler authenticates the ${route.api} API key (${route.api === 'mobile' ? 'X-API-KEY' : 'Bearer'}) by its SHA-256 in the table (lib/http/auth.ts); callers are apps, not IAM or Cognito users.`;
        acknowledge(method, { id: 'AwsSolutions-APIG4', reason }, { id: 'AwsSolutions-COG4', reason });
      }
      this.functions.set(name, fn);
    }

    // API Gateway picks a resource before a method (a literal path segment beats a {param}), and
    // answers a method a resource lacks with 403 "Missing Authentication Token". So every resource
    // with routes gets an ANY method (a method it defines wins over ANY) answering, with no
    // function behind it, 405 METHOD_NOT_ALLOWED and Allow in its API's envelope, as `npm start` does.
    const byPath = new Map<string, Route[]>();
    for (const route of props.routes ?? ROUTES) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    for (const [path, routes] of byPath) {
      const allow = routes
        .map((r) => r.method)
        .sort()
        .join(', ');
      const body = JSON.stringify(errorBody(routes[0]!.api, new AppError('METHOD_NOT_ALLOWED'), ''));
      const integration = new MockIntegration({
        // The body may be binary (binaryMediaTypes */*): as text, the template applies to it.
        contentHandling: ContentHandling.CONVERT_TO_TEXT,
        passthroughBehavior: PassthroughBehavior.NEVER,
        requestTemplates: Object.fromEntries(
          METHOD_NOT_ALLOWED_CONTENT_TYPES.map((type) => [type, '{"statusCode": 405}']),
        ),
        integrationResponses: [
          {
            statusCode: '405',
            responseParameters: {
              'method.response.header.Allow': `'${allow}'`,
              'method.response.header.Content-Type': "'application/json; charset=utf-8'",
              'method.response.header.X-Request-Id': 'context.requestId',
            },
            responseTemplates: { 'application/json': body },
          },
        ],
      });
      const method = this.restApi.root.resourceForPath(path).addMethod('ANY', integration, {
        methodResponses: [
          {
            statusCode: '405',
            responseParameters: {
              'method.response.header.Allow': true,
              'method.response.header.Content-Type': true,
              'method.response.header.X-Request-Id': true,
            },
          },
        ],
      });
      const reason = 'A MOCK integration answering 405 METHOD_NOT_ALLOWED with Allow: no function, no data behind it.';
      acknowledge(method, { id: 'AwsSolutions-APIG4', reason }, { id: 'AwsSolutions-COG4', reason });
    }

    // The subscription API's CORS preflights, answered by API Gateway (an OPTIONS method wins over
    // the ANY above); `npm start`'s gateway answers them the same way (lib/http/cors.ts).
    if (browserOrigins.length > 0) {
      for (const [path, routes] of byPath) {
        if (routes[0]!.api !== 'subscriptions') continue;
        this.restApi.root.resourceForPath(path).addCorsPreflight({
          allowOrigins: [...browserOrigins],
          allowMethods: [...CORS_ALLOWED_METHODS],
          allowHeaders: [...CORS_ALLOWED_HEADERS],
          maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
          statusCode: 204,
        });
      }
    }

    new CfnOutput(scope, 'ApiUrl', { value: this.restApi.url, description: 'Base URL of both APIs' });
  }
}
