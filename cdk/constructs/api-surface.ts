/**
 * One surface of the REST API as a nested stack (./api-surfaces.ts says which paths): the API
 * Gateway resources under its prefixes, a method per route, a function per handler module with its
 * role, policy and log group, and the Lambda permission of each method; per path, the 405 answer
 * and, on the subscription API, the CORS preflight. What it shares with the parent comes in as
 * props (the REST API, the parent's paths, the table, the console's origins), and CloudFormation
 * passes them as the nested stack's parameters. The parent's deployment depends on this stack, so
 * it snapshots every method, and its logical id changes with theirs (as for methods of its own).
 */
import { Duration, NestedStack } from 'aws-cdk-lib';
import {
  AwsIntegration,
  ContentHandling,
  type CorsOptions,
  type IResource,
  type Method,
  MockIntegration,
  PassthroughBehavior,
  Resource,
  type RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { AppError } from '../../lib/core/errors.js';
import { CORS_ALLOWED_HEADERS, CORS_ALLOWED_METHODS, CORS_MAX_AGE_SECONDS } from '../../lib/http/cors.js';
import { type ApiName, errorBody } from '../../lib/http/envelopes.js';
import {
  REVENUECAT_CORS_ALLOWED_HEADERS,
  REVENUECAT_CORS_ALLOWED_METHODS,
  REVENUECAT_CORS_ORIGIN,
  revenuecatErrorBody,
} from '../../lib/http/revenuecat.js';
import { ENDPOINT_TIMEOUT_SECONDS, endpointFunctions, type Route } from '../../lib/routes.js';
import { acknowledge } from './acknowledge.js';
import { ServiceFunction } from './service-function.js';

export const STAGE_NAME = 'prod';

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

export interface ApiSurfaceProps {
  description: string;
  restApi: RestApi;
  /** API Gateway resources of the parent stack by path (`/` and the surfaces' shared ancestors). */
  sharedPaths: ReadonlyMap<string, IResource>;
  /** This surface's routes, each under one of its prefixes. */
  routes: readonly Route[];
  table: ITable;
  storeSecretsPrefix: string;
  /** Origins whose pages may call the subscription API (CORS). */
  browserOrigins: readonly string[];
  /** The environment of a route's function besides the table's and the store secrets'. */
  environmentOf: (api: ApiName) => Record<string, string>;
}

export class ApiSurfaceStack extends NestedStack {
  readonly functions: Map<string, ServiceFunction> = new Map();
  private readonly sharedPaths: ReadonlyMap<string, IResource>;
  private readonly paths: Map<string, IResource>;

  constructor(scope: Construct, id: string, props: ApiSurfaceProps) {
    super(scope, id, { description: props.description });
    this.sharedPaths = props.sharedPaths;
    this.paths = new Map(props.sharedPaths);
    const { restApi } = props;
    const apiGateway = new ServicePrincipal('apigateway.amazonaws.com');

    // Routes of one handler module have the same grants (endpointFunctions checks), so the first declares them.
    for (const { name, handler, routes } of endpointFunctions(props.routes)) {
      const [first] = routes as [Route];
      const fn = new ServiceFunction(this, name, {
        handlerModule: handler,
        description: routes.map((route) => `${route.method} ${route.path}`).join(', '),
        timeout: Duration.seconds(ENDPOINT_TIMEOUT_SECONDS),
        environment: props.environmentOf(first.api),
      }).useTable(props.table, first.table);
      if (first.storeSecrets) fn.useStoreSecrets(props.storeSecretsPrefix);
      // LambdaIntegration's own permission would name the stage by reference, and the stage depends
      // on this stack (its deployment snapshots these methods): the permission names it by its name.
      // No test-invoke permission (the API Gateway console's test button): half the Lambda permissions.
      const integration = new AwsIntegration({
        proxy: true,
        service: 'lambda',
        path: `2015-03-31/functions/${fn.functionArn}/invocations`,
      });
      for (const route of routes) {
        const method = this.resourceFor(route.path).addMethod(route.method, integration);
        fn.addPermission(`ApiPermission.${route.method}.${route.path}`, {
          principal: apiGateway,
          scope: method,
          sourceArn: restApi.arnForExecuteApi(route.method, route.path.replace(/\{[^}]*\}/g, '*'), STAGE_NAME),
        });
        acknowledgeNoAuthorizer(method, noAuthorizerReason(route));
      }
      this.functions.set(name, fn);
    }

    // API Gateway picks a resource before a method (a literal path segment beats a {param}), and
    // answers a method a resource lacks with 403 "Missing Authentication Token". So every resource
    // with routes gets an ANY method (a method it defines wins over ANY) answering, with no
    // function behind it, 405 METHOD_NOT_ALLOWED and Allow in its API's envelope, as `npm start` does.
    const byPath = new Map<string, Route[]>();
    for (const route of props.routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    for (const [path, routes] of byPath) {
      const allow = routes
        .map((r) => r.method)
        .sort()
        .join(', ');
      const api = routes[0]!.api;
      const refusal = new AppError('METHOD_NOT_ALLOWED');
      const body = JSON.stringify(
        api === 'revenuecat' ? revenuecatErrorBody(refusal, '') : errorBody(api, refusal, ''),
      );
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
      const method = this.resourceFor(path).addMethod('ANY', integration, {
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
      acknowledgeNoAuthorizer(
        method,
        'A MOCK integration answering 405 METHOD_NOT_ALLOWED with Allow: no function, no data behind it.',
      );
    }

    // The CORS preflights, answered by API Gateway (an OPTIONS method wins over the ANY above);
    // `npm start`'s gateway answers them the same way: the subscription API's to the console's
    // origins (lib/http/cors.ts), RevenueCat's dialect's to any origin, naming each header
    // purchases-js sends (lib/http/revenuecat.ts).
    const preflights: Partial<Record<ApiName, Pick<CorsOptions, 'allowOrigins' | 'allowMethods' | 'allowHeaders'>>> = {
      ...(props.browserOrigins.length > 0 && {
        subscriptions: {
          allowOrigins: [...props.browserOrigins],
          allowMethods: [...CORS_ALLOWED_METHODS],
          allowHeaders: [...CORS_ALLOWED_HEADERS],
        },
      }),
      revenuecat: {
        allowOrigins: [REVENUECAT_CORS_ORIGIN['Access-Control-Allow-Origin']],
        allowMethods: [...REVENUECAT_CORS_ALLOWED_METHODS],
        allowHeaders: [...REVENUECAT_CORS_ALLOWED_HEADERS],
      },
    };
    for (const [path, routes] of byPath) {
      const cors = preflights[routes[0]!.api];
      if (cors)
        this.resourceFor(path).addCorsPreflight({
          ...cors,
          maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
          statusCode: 204,
        });
    }
  }

  /** The API Gateway resource of a path: the parent's, or one of this stack's, made with its parents here. */
  private resourceFor(path: string): IResource {
    const known = this.paths.get(path);
    if (known) return known;
    const cut = path.lastIndexOf('/');
    const parentPath = cut === 0 ? '/' : path.slice(0, cut);
    const parent = this.resourceFor(parentPath);
    const pathPart = path.slice(cut + 1);
    // Under one of this stack's resources, as RestApi builds its tree; under the parent's, named by its path.
    const resource = this.sharedPaths.has(parentPath)
      ? new Resource(this, path.slice(1).replaceAll('/', '.'), { parent, pathPart })
      : new Resource(parent, pathPart, { parent, pathPart });
    this.paths.set(path, resource);
    return resource;
  }
}

/** Why a route has no API Gateway authorizer: its handler authenticates, or it needs no caller. */
function noAuthorizerReason(route: Route): string {
  if (route.api === 'notifications')
    return 'A store posts here without a key: the handler verifies the notification itself (App Store and test store: its signature chain; Google Play: the Google-signed OIDC token of the Pub/Sub push) and re-reads Google.';
  if (route.table.length === 0)
    return "RevenueCat's SDKs send this health call without a key: the handler reads nothing and answers everyone alike.";
  return `The handler authenticates the ${route.api} API key (${route.api === 'mobile' ? 'X-API-KEY' : 'Bearer'}) by its SHA-256 in the table (lib/http/auth.ts); callers are apps, not IAM or Cognito users.`;
}

function acknowledgeNoAuthorizer(method: Method, reason: string): void {
  acknowledge(method, { id: 'AwsSolutions-APIG4', reason }, { id: 'AwsSolutions-COG4', reason });
}
