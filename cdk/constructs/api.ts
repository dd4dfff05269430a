/**
 * API Gateway (REST API) with one Lambda function per row of lib/routes.ts. Each function may
 * perform exactly the DynamoDB actions its route declares, on the table and its indexes.
 */
import { CfnOutput, Duration } from 'aws-cdk-lib';
import { AccessLogFormat, LambdaIntegration, LogGroupLogDestination, ResponseType, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ROUTES, type Route } from '../../lib/routes.js';
import { ServiceFunction } from './service-function.js';

/**
 * Errors API Gateway answers itself (before any function runs). The two APIs have different
 * envelopes, so the body carries both: `{status:"error", code, message}` for the mobile API and
 * `{error: {code, message}}` for the subscription API.
 */
const gatewayError = (code: string, status: string) => ({
  statusCode: status,
  templates: {
    'application/json': JSON.stringify({
      status: 'error',
      code,
      message: '$context.error.messageString',
      error: { code, message: '$context.error.messageString' },
    }),
  },
});

export class Api extends Construct {
  readonly restApi: RestApi;
  readonly functions: Map<string, ServiceFunction> = new Map();

  constructor(scope: Construct, id: string, props: { table: Table; routes?: readonly Route[] }) {
    super(scope, id);
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: 'subscription-backend',
      description: 'Subscription management API (/v1/subscriptions) and mobile reporting API',
      cloudWatchRole: true,
      deployOptions: {
        stageName: 'prod',
        tracingEnabled: true,
        throttlingBurstLimit: 200,
        throttlingRateLimit: 100,
        accessLogDestination: new LogGroupLogDestination(new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH })),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
    });

    const responses: [ResponseType, string, string][] = [
      [ResponseType.MISSING_AUTHENTICATION_TOKEN, 'ROUTE_NOT_FOUND', '404'],
      [ResponseType.RESOURCE_NOT_FOUND, 'ROUTE_NOT_FOUND', '404'],
      [ResponseType.UNAUTHORIZED, 'INVALID_API_KEY', '401'],
      [ResponseType.ACCESS_DENIED, 'FORBIDDEN', '403'],
      [ResponseType.THROTTLED, 'RATE_LIMITED', '429'],
      [ResponseType.QUOTA_EXCEEDED, 'RATE_LIMITED', '429'],
      [ResponseType.REQUEST_TOO_LARGE, 'PAYLOAD_TOO_LARGE', '413'],
      [ResponseType.DEFAULT_4XX, 'INVALID_PARAMETER', '400'],
      [ResponseType.DEFAULT_5XX, 'INTERNAL_ERROR', '500'],
    ];
    for (const [type, code, status] of responses) {
      this.restApi.addGatewayResponse(`${code}${status}${type.responseType}`, { type, ...gatewayError(code, status) });
    }

    for (const route of props.routes ?? ROUTES) {
      const fn = new ServiceFunction(this, route.name, {
        handlerModule: route.handler,
        description: `${route.method} ${route.path}`,
        timeout: Duration.seconds(10),
      }).useTable(props.table, route.table);
      this.restApi.root.resourceForPath(route.path).addMethod(route.method, new LambdaIntegration(fn));
      this.functions.set(route.name, fn);
    }

    new CfnOutput(scope, 'ApiUrl', { value: this.restApi.url, description: 'Base URL of both APIs' });
  }
}
