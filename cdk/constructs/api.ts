/**
 * The one API Gateway REST API: its stage, logs, throttles and gateway responses here, in the parent
 * stack, and its routes in one nested stack per surface (./api-surfaces.ts, ./api-surface.ts): one
 * method per row of lib/routes.ts and one Lambda function per handler module, integrated with the
 * methods of all its rows (the V1 and V2 paths of a mobile endpoint). Each function may perform
 * exactly the DynamoDB actions its routes declare, on the table and its indexes.
 */
import { CfnOutput } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  DomainName,
  EndpointType,
  type IResource,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { config, REPORT_QUOTA_VARIABLES, rateLimitVariable, reportConfig } from '../../lib/core/config.js';
import { RATE_LIMIT_TIERS } from '../../lib/domain/rate-limit.js';
import { CORS_EXPOSED_HEADERS } from '../../lib/http/cors.js';
import type { ApiName } from '../../lib/http/envelopes.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { acknowledge } from './acknowledge.js';
import { ApiSurfaceStack, STAGE_NAME } from './api-surface.js';
import { API_SURFACES, type ApiSurfaceLayout, routesBySurface, sharedAncestors } from './api-surfaces.js';
import { type ApiDomainContext, wholeNumberContext } from './context.js';
import type { ServiceFunction } from './service-function.js';

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

/** What API Gateway accepts as a method's rate (requests per second) and burst. */
const THROTTLE_RANGE = [1, 10_000] as const;

export class Api extends Construct {
  readonly restApi: RestApi;
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
      /** Which nested stack serves which paths (./api-surfaces.ts). */
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
    // API Gateway writes access and execution logs with one role per account and region (its
    // account settings). Creating it here (an AWS::ApiGateway::Account, retained) would replace the
    // role the account already has, so it is opt-in, for an account that has none yet:
    // -c apiGatewayCloudWatchRole=true.
    const cloudWatchRole = String(this.node.tryGetContext('apiGatewayCloudWatchRole') ?? 'false') === 'true';
    const routeList = props.routes ?? ROUTES;
    const layout = props.surfaces ?? API_SURFACES;
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
          String(reportConfig.reportQuotas[quota as keyof typeof REPORT_QUOTA_VARIABLES]),
        ]),
      ),
      EVENT_RETENTION_DAYS: String(reportConfig.eventRetentionDays),
    };
    const environmentOf = (api: ApiName): Record<string, string> => ({
      ...rateLimitEnvironment,
      ...storeCallEnvironment,
      ...(api === 'mobile' ? reportEnvironment : {}),
      ...(api === 'subscriptions' && browserOrigins.length > 0 ? { CONSOLE_ORIGINS: browserOrigins.join(',') } : {}),
      ...(props.paywallsBaseUrl ? { PAYWALLS_BASE_URL: props.paywallsBaseUrl } : {}),
    });

    // The paths above the surfaces' prefixes are the parent's; each surface builds its own subtrees on them.
    const sharedPaths = new Map<string, IResource>([['/', this.restApi.root]]);
    for (const path of sharedAncestors(layout)) sharedPaths.set(path, this.restApi.root.resourceForPath(path));
    for (const [surface, routes] of routesBySurface(routeList, layout)) {
      if (routes.length === 0) continue;
      const stack = new ApiSurfaceStack(this, surface.id, {
        description: surface.description,
        restApi: this.restApi,
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

    new CfnOutput(scope, 'ApiUrl', { value: this.restApi.url, description: 'Base URL of both APIs' });
    if (props.domain) this.mapDomain(scope, props.domain);
  }

  /**
   * The API at the root of its own domain: RevenueCat's SDKs resolve their absolute `/v1/...`
   * paths against the proxy URL and drop its path, so they cannot use the stage's URL (`/prod/`).
   * A regional domain on the operator's ACM certificate (in the stack's region), TLS 1.2, its
   * base path mapping empty: the whole stage at `/`. The DNS record is the operator's
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
    new CfnOutput(scope, 'ApiDomainUrl', {
      value: `https://${domain.domainName}`,
      description: "Both APIs at the domain's root: the proxy URL of RevenueCat's SDKs",
    });
    new CfnOutput(scope, 'ApiDomainTarget', {
      value: domainName.domainNameAliasDomainName,
      description: `Point ${domain.domainName} here (CNAME, or a Route 53 alias)`,
    });
  }
}
