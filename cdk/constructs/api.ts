/**
 * The API Gateway REST APIs (the service's, and RevenueCat's dialect's: ./api-surfaces.ts
 * REST_APIS): their stages, logs, throttles and gateway responses here, in the parent stack, and
 * their routes in one nested stack per surface (./api-surfaces.ts, ./api-surface.ts): one
 * method per row of lib/routes.ts and one Lambda function per handler module, integrated with the
 * methods of all its rows (the V1 and V2 paths of a mobile endpoint). Each function may perform
 * exactly the DynamoDB actions its routes declare, on the table and its indexes.
 */
import { CfnOutput } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  type CfnDomainName,
  DomainName,
  EndpointType,
  type IResource,
  LogGroupLogDestination,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { CfnRoutingRule } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { config, REPORT_QUOTA_VARIABLES, rateLimitVariable, reportConfig } from '../../lib/core/config.js';
import { AppError, type ErrorKind } from '../../lib/core/errors.js';
import { RATE_LIMIT_TIERS } from '../../lib/domain/rate-limit.js';
import { revenuecatRefusalOf } from '../../lib/domain/revenuecat-errors.js';
import { CORS_EXPOSED_HEADERS } from '../../lib/http/cors.js';
import type { ApiName } from '../../lib/http/envelopes.js';
import { REVENUECAT_CORS_ORIGIN, REVENUECAT_PREFIXES, revenuecatErrorBody } from '../../lib/http/revenuecat.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { acknowledge } from './acknowledge.js';
import { ApiSurfaceStack, STAGE_NAME } from './api-surface.js';
import {
  API_SURFACES,
  type ApiSurfaceLayout,
  REST_APIS,
  type RestApiKey,
  routesBySurface,
  sharedAncestors,
} from './api-surfaces.js';
import { type ApiDomainContext, wholeNumberContext } from './context.js';
import type { ServiceFunction } from './service-function.js';

/**
 * Errors API Gateway answers itself (before any function runs: unknown route, throttling, a
 * future usage-plan key check): `[type, code, status]`. No status for the DEFAULT_* catch-alls, so
 * 403, 415, 502, 504... keep the status API Gateway gives them and only the body becomes JSON.
 */
const GATEWAY_RESPONSES: readonly [ResponseType, ErrorKind, string | undefined][] = [
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

/**
 * The service's REST API serves two APIs with different error envelopes, and the gateway does not
 * know which of them a request was meant for, so the one body carries both:
 * `{error: {code, message}}` (subscription API) and `{status: "error", code, message}` (mobile
 * API). Clients of either read their own keys and ignore the others.
 *
 * `$context.error.messageString` is substituted already quoted (`"Missing Authentication Token"`),
 * so it goes into the template unquoted; a quoted placeholder would produce `""..""`, invalid JSON.
 * `$context.requestId` is the id API Gateway writes to the access log.
 */
const MESSAGE = '__GATEWAY_MESSAGE__';
const withGatewayMessage = (body: unknown): string =>
  JSON.stringify(body).replaceAll(`"${MESSAGE}"`, '$context.error.messageString');
const gatewayErrorTemplate = (code: ErrorKind, withRequestId: boolean): string =>
  withGatewayMessage({
    error: { code, message: MESSAGE, ...(withRequestId ? { request_id: '$context.requestId' } : {}) },
    status: 'error',
    code,
    message: MESSAGE,
    ...(withRequestId ? { request_id: '$context.requestId' } : {}),
  });

/**
 * A gateway error of RevenueCat's dialect: its envelope (`{code, message}` with RevenueCat's
 * numeric code), and a throttling refusal answered as what may succeed later (503 with
 * Retry-After), as the handlers answer it: any 4xx to `POST /v1/receipts` makes the SDKs finish
 * the purchase and never send it again.
 */
function revenuecatGatewayError(
  code: ErrorKind,
  status: string | undefined,
): { statusCode: string | undefined; headers: Record<string, string>; template: string } {
  const error = new AppError(code, MESSAGE, { retryable: code === 'RATE_LIMITED' });
  const refusal = revenuecatRefusalOf(error);
  return {
    statusCode: status === undefined ? undefined : String(refusal.status),
    headers: refusal.status === 503 ? { 'Retry-After': "'1'" } : {},
    template: withGatewayMessage(revenuecatErrorBody(error, '$context.requestId')),
  };
}

export { METHOD_NOT_ALLOWED_CONTENT_TYPES, STAGE_NAME } from './api-surface.js';

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

/** Gaps between the domain's routing rules' priorities, so that a rule can go between two. */
const ROUTING_RULE_PRIORITY_STEP = 100;

/** What API Gateway accepts as a method's rate (requests per second) and burst. */
const THROTTLE_RANGE = [1, 10_000] as const;

/**
 * The environment of a route's function besides the table's and the store secrets': the limits
 * and quotas as configured where `cdk deploy` runs (the same variables and defaults the local
 * gateway reads), so AWS and `npm start` enforce the same numbers.
 */
function functionEnvironment(browserOrigins: readonly string[], paywallsBaseUrl: string | undefined) {
  // Per-key limits of each tier.
  const rateLimitEnvironment = Object.fromEntries(
    RATE_LIMIT_TIERS.map((tier) => [rateLimitVariable(tier), String(config.rateLimits[tier])]),
  );
  // Each app's budget of store calls (docs/security.md#outbound-store-calls).
  const storeCallEnvironment = {
    STORE_CALL_BURST: String(config.storeCallBudget.burst),
    STORE_CALLS_PER_MINUTE: String(config.storeCallBudget.perMinute),
    STORE_UNKNOWN_TTL_SECONDS: String(config.storeUnknownTtlSeconds),
  };
  // The mobile reports' per-app quotas and retention.
  const reportEnvironment = {
    ...Object.fromEntries(
      Object.entries(REPORT_QUOTA_VARIABLES).map(([quota, name]) => [
        name,
        String(reportConfig.reportQuotas[quota as keyof typeof REPORT_QUOTA_VARIABLES]),
      ]),
    ),
    EVENT_RETENTION_DAYS: String(reportConfig.eventRetentionDays),
  };
  return (api: ApiName): Record<string, string> => ({
    ...rateLimitEnvironment,
    ...storeCallEnvironment,
    ...(api === 'mobile' ? reportEnvironment : {}),
    ...(api === 'subscriptions' && browserOrigins.length > 0 ? { CONSOLE_ORIGINS: browserOrigins.join(',') } : {}),
    ...(paywallsBaseUrl ? { PAYWALLS_BASE_URL: paywallsBaseUrl } : {}),
  });
}

export class Api extends Construct {
  /** The service's REST API: both of the spec's APIs, the store notifications, DingYue's dialect. */
  readonly restApi: RestApi;
  /** RevenueCat's dialect's REST API (./api-surfaces.ts REST_APIS). */
  readonly revenuecatRestApi: RestApi;
  /** The nested stacks of the routes, one per surface that has any. */
  readonly surfaces: ApiSurfaceStack[] = [];
  /** Every route's function, by name, whichever nested stack it is in. */
  readonly functions: Map<string, ServiceFunction> = new Map();

  constructor(
    scope: Construct,
    id: string,
    props: {
      table: ITable;
      storeSecretsPrefix: string;
      routes?: readonly Route[];
      /** Which REST API and nested stack serves which paths (./api-surfaces.ts). */
      surfaces?: readonly ApiSurfaceLayout[];
      /** Origins whose pages may call the subscription API (CORS): the console's first. Never `*`. */
      browserOrigins?: readonly string[];
      /** Where paywall bundles are downloaded from (PAYWALLS_BASE_URL); unset, none has a URL. */
      paywallsBaseUrl?: string;
      /** The API's own domain, mapped at its root (-c apiDomainName, -c apiCertificateArn). */
      domain?: ApiDomainContext | undefined;
    },
  ) {
    super(scope, id);
    const layout = props.surfaces ?? API_SURFACES;
    const bySurface = routesBySurface(props.routes ?? ROUTES, layout);
    const browserOrigins = props.browserOrigins ?? [];
    if (browserOrigins.includes('*')) throw new Error('the subscription API never allows every origin (CORS)');
    const routesOf = (key: RestApiKey) =>
      [...bySurface].flatMap(([surface, routes]) => (surface.restApi === key ? routes : []));
    this.restApi = this.createRestApi('service', routesOf('service'), browserOrigins);
    this.revenuecatRestApi = this.createRestApi('revenuecat', routesOf('revenuecat'), browserOrigins);

    const environmentOf = functionEnvironment(browserOrigins, props.paywallsBaseUrl);
    for (const [key, restApi] of [
      ['service', this.restApi],
      ['revenuecat', this.revenuecatRestApi],
    ] as const) {
      const surfaces = layout.filter((surface) => surface.restApi === key);
      // The paths above the surfaces' prefixes are the parent's; each surface builds its own subtrees on them.
      const sharedPaths = new Map<string, IResource>([['/', restApi.root]]);
      for (const path of sharedAncestors(surfaces)) sharedPaths.set(path, restApi.root.resourceForPath(path));
      for (const surface of surfaces) {
        const routes = bySurface.get(surface) ?? [];
        if (routes.length === 0) continue;
        const stack = new ApiSurfaceStack(this, surface.id, {
          description: surface.description,
          restApi,
          sharedPaths,
          routes,
          table: props.table,
          storeSecretsPrefix: props.storeSecretsPrefix,
          browserOrigins,
          environmentOf,
        });
        this.surfaces.push(stack);
        for (const [name, fn] of stack.functions) this.functions.set(name, fn);
      }
    }

    new CfnOutput(scope, 'ApiUrl', {
      value: this.restApi.url,
      description: 'Base URL of the subscription management and mobile reporting APIs',
    });
    new CfnOutput(scope, 'RevenueCatApiUrl', {
      value: this.revenuecatRestApi.url,
      description: "Base URL of RevenueCat's SDK dialect (its SDKs need ApiDomainUrl: -c apiDomainName)",
    });
    if (props.domain) this.mapDomain(scope, props.domain);
  }

  /**
   * One REST API with its stage: the stage-wide throttle and a method setting for each route with
   * limits of its own, access logs and execution logs (failed requests only) into log groups with
   * a retention, and the gateway's own errors in the API's envelope. The service's keeps the
   * construct ids it always had (a new logical id would replace the REST API and its URL).
   */
  private createRestApi(key: RestApiKey, routes: readonly Route[], browserOrigins: readonly string[]): RestApi {
    const { id, name, description } = REST_APIS[key];
    const idPrefix = key === 'service' ? '' : 'RevenueCat';
    // API Gateway writes access and execution logs with one role per account and region (its
    // account settings). Creating it here (an AWS::ApiGateway::Account, retained) would replace the
    // role the account already has, so it is opt-in, for an account that has none yet:
    // -c apiGatewayCloudWatchRole=true. The service's REST API creates it; the other's stage waits for it.
    const cloudWatchRole = String(this.node.tryGetContext('apiGatewayCloudWatchRole') ?? 'false') === 'true';
    const restApi = new RestApi(this, id, {
      restApiName: name,
      description,
      // Every body reaches the functions as its bytes (base64), so they refuse what is not UTF-8
      // instead of receiving it with U+FFFD in place of the bad bytes (lib/http/parse.ts).
      binaryMediaTypes: ['*/*'],
      cloudWatchRole: cloudWatchRole && key === 'service',
      deployOptions: {
        stageName: STAGE_NAME,
        tracingEnabled: true,
        // A stage-wide flood guard in front of every function (the per-key and per-user limits are
        // enforced in the handlers, per IP by WAF: ./waf.ts); size it for all apps together:
        // -c apiThrottleRate=… -c apiThrottleBurst=…
        throttlingRateLimit: Number(this.node.tryGetContext('apiThrottleRate') ?? 100),
        throttlingBurstLimit: Number(this.node.tryGetContext('apiThrottleBurst') ?? 200),
        methodOptions: this.methodOptionsOf(routes),
        accessLogDestination: new LogGroupLogDestination(
          new LogGroup(this, `${idPrefix}AccessLogs`, { retention: RetentionDays.ONE_MONTH }),
        ),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        // Execution logs of failed requests only. Never data tracing: it logs whole requests
        // and responses, i.e. API keys, receipts and emails.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
    });
    // API Gateway would create the execution log group itself, without a retention: create it first.
    const stage = restApi.deploymentStage;
    const executionLogs = new LogGroup(this, `${idPrefix}ExecutionLogs`, {
      logGroupName: `API-Gateway-Execution-Logs_${restApi.restApiId}/${STAGE_NAME}`,
      retention: RetentionDays.ONE_MONTH,
    });
    stage.node.addDependency(executionLogs);
    if (cloudWatchRole && key === 'service') {
      acknowledge(restApi.node.findChild('CloudWatchRole'), {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "API Gateway's account-wide logging role (needed for access and execution logs); AWS documents this managed policy for it.",
      });
    }
    if (cloudWatchRole && key !== 'service') stage.node.addDependency(this.restApi.node.findChild('Account'));
    acknowledge(restApi, {
      id: 'AwsSolutions-APIG2',
      reason:
        "Every handler validates path, query and body with the zod schemas in lib/schemas and answers in its API's envelope with field paths; a gateway validator would duplicate them with a different error body.",
    });
    for (const [type, code, status] of GATEWAY_RESPONSES) {
      const answer =
        key === 'service'
          ? { statusCode: status, headers: {}, template: gatewayErrorTemplate(code, type === ResponseType.DEFAULT_5XX) }
          : revenuecatGatewayError(code, status);
      // A browser reads the gateway's own refusals (a throttling 429) too: the console, and on
      // RevenueCat's dialect purchases-js from any origin. One static origin: a gateway response
      // cannot choose among several, and echoing the request's would allow any.
      const cors: Record<string, string> =
        key === 'revenuecat'
          ? { 'Access-Control-Allow-Origin': `'${REVENUECAT_CORS_ORIGIN['Access-Control-Allow-Origin']}'` }
          : browserOrigins[0]
            ? {
                'Access-Control-Allow-Origin': `'${browserOrigins[0]}'`,
                'Access-Control-Expose-Headers': `'${CORS_EXPOSED_HEADERS.join(', ')}'`,
              }
            : {};
      const responseHeaders: Record<string, string> = { ...cors, ...answer.headers };
      restApi.addGatewayResponse(`GatewayResponse${type.responseType}`, {
        type,
        ...(answer.statusCode ? { statusCode: answer.statusCode } : {}),
        ...(Object.keys(responseHeaders).length > 0 ? { responseHeaders } : {}),
        templates: { 'application/json': answer.template },
      });
    }
    return restApi;
  }

  /**
   * `<resource path>/<METHOD>`, as a stage's method settings name a method, for each route with
   * limits of its own. A method setting replaces the stage's for that method: it repeats the logging settings.
   */
  private methodOptionsOf(routes: readonly Route[]): Record<string, MethodDeploymentOptions> {
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
    return Object.fromEntries(
      routes.flatMap((route) => {
        const kind = routeThrottleKind(route);
        if (!kind) return [];
        const settings = { ...limitsOf(kind), loggingLevel: MethodLoggingLevel.ERROR, dataTraceEnabled: false };
        return [[`${route.path}/${route.method}`, settings]];
      }),
    );
  }

  /**
   * Both REST APIs at the root of their own domain: RevenueCat's SDKs resolve their absolute
   * `/v1/...` paths against the proxy URL and drop its path, so they cannot use a stage's URL
   * (`/prod/`). A regional domain on the operator's ACM certificate (in the stack's region), TLS
   * 1.2. A routing rule per prefix of the dialect invokes its REST API with the path whole (no base
   * path stripped); every other path falls to the base path mapping of the service's REST API,
   * empty as before: its whole stage at `/`. The DNS record is the operator's
   * (docs/sdk-revenuecat.md): a CNAME, or a Route 53 alias, to ApiDomainTarget.
   */
  private mapDomain(scope: Construct, domain: ApiDomainContext): void {
    const domainName = new DomainName(this, 'Domain', {
      domainName: domain.domainName,
      certificate: Certificate.fromCertificateArn(this, 'DomainCertificate', domain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
      mapping: this.restApi,
    });
    const cfnDomainName = domainName.node.defaultChild as CfnDomainName;
    cfnDomainName.routingMode = 'ROUTING_RULE_THEN_BASE_PATH_MAPPING';
    REVENUECAT_PREFIXES.forEach((prefix, index) => {
      // A rule's base path is the path's first segments without the leading slash (`v1/receipts`).
      new CfnRoutingRule(this, `RevenueCatRoute${index}`, {
        domainNameArn: cfnDomainName.attrDomainNameArn,
        priority: (index + 1) * ROUTING_RULE_PRIORITY_STEP,
        conditions: [{ matchBasePaths: { anyOf: [prefix.slice(1)] } }],
        actions: [
          {
            invokeApi: {
              apiId: this.revenuecatRestApi.restApiId,
              stage: STAGE_NAME,
              stripBasePath: false,
            },
          },
        ],
      });
    });
    new CfnOutput(scope, 'ApiDomainUrl', {
      value: `https://${domain.domainName}`,
      description: "Every API at the domain's root: the proxy URL of RevenueCat's SDKs",
    });
    new CfnOutput(scope, 'ApiDomainTarget', {
      value: domainName.domainNameAliasDomainName,
      description: `Point ${domain.domainName} here (CNAME, or a Route 53 alias)`,
    });
  }
}
