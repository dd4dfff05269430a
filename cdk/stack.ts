/**
 * The backend: one stack, `cdk deploy`ed as one, composed of a construct per concern. The table, the
 * notification path (bus, queues, alarms, stream and job functions), the REST APIs with their stages
 * and firewall, and the console are in this stack, with every output; the routes are in one nested
 * stack per API surface (cdk/constructs/api-surfaces.ts), so that they can outgrow what one
 * template holds (test/cdk/quotas.test.ts).
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { STORE_SECRETS_PREFIX_OUTPUT } from '../lib/domain/credential-placement.js';
import { readConsoleOrigins } from '../lib/http/cors.js';
import { ROUTES, type Route } from '../lib/routes.js';
import { PAYWALLS_BUCKET_OUTPUT } from '../lib/schemas/paywall.js';
import { Api } from './constructs/api.js';
import { OperatorConsole } from './constructs/console.js';
import { apiDomainContext } from './constructs/context.js';
import { DataStore } from './constructs/data.js';
import { Notifications } from './constructs/notifications.js';
import { PaywallBundles } from './constructs/paywalls.js';
import { ApiFirewall } from './constructs/waf.js';

export interface SubscriptionBackendStackProps extends StackProps {
  /** The route table (lib/routes.ts); a test passes a larger one to see what the stack's quotas allow. */
  routes?: readonly Route[];
}

export class SubscriptionBackendStack extends Stack {
  readonly data: DataStore;
  readonly api: Api;
  readonly notifications: Notifications;
  readonly firewall: ApiFirewall;
  readonly console: OperatorConsole;
  readonly paywalls: PaywallBundles;

  constructor(scope: Construct, id: string, props: SubscriptionBackendStackProps = {}) {
    const { routes = ROUTES, ...stackProps } = props;
    super(scope, id, { description: 'Self-hosted subscription backend', ...stackProps });
    this.data = new DataStore(this, 'Data');
    // Store credentials: one Secrets Manager secret per app and store, written by `admin --aws stores ... set`.
    const storeSecretsPrefix = `subscription-backend/${this.stackName}/`;
    this.console = new OperatorConsole(this, 'Console');
    this.paywalls = new PaywallBundles(this, 'Paywalls', {
      distribution: this.console.distribution,
      headers: this.console.headers,
    });
    // More origins for the console (an operator's own domain): -c consoleOrigins=https://console.example.com
    const extraOrigins = readConsoleOrigins(this.node.tryGetContext('consoleOrigins') as string | undefined);
    this.api = new Api(this, 'Api', {
      table: this.data.table,
      storeSecretsPrefix,
      routes,
      browserOrigins: [this.console.origin, ...extraOrigins],
      paywallsBaseUrl: this.paywalls.baseUrl,
      // The API at the root of its own domain, for RevenueCat's SDKs (docs/sdk-revenuecat.md):
      // -c apiDomainName=api.example.com -c apiCertificateArn=arn:aws:acm:…
      domain: apiDomainContext(this.node),
    });
    this.console.connectTo(this.api.restApi);
    new CfnOutput(this, 'ConsoleUrl', {
      value: `${this.console.origin}/`,
      description: "The operator console (sign in with an app's secret key)",
    });
    this.firewall = new ApiFirewall(this, 'Firewall', {
      stages: { service: this.api.restApi.deploymentStage, revenuecat: this.api.revenuecatRestApi.deploymentStage },
      routes,
    });
    new CfnOutput(this, STORE_SECRETS_PREFIX_OUTPUT, {
      value: storeSecretsPrefix,
      description: 'STORE_SECRETS_PREFIX for `admin --aws` (store credentials and test-store keys)',
    });
    this.notifications = new Notifications(this, 'Notifications', { table: this.data.table, storeSecretsPrefix });
    new CfnOutput(this, PAYWALLS_BUCKET_OUTPUT, {
      value: this.paywalls.bucket.bucketName,
      description: 'PAYWALLS_BUCKET for `admin --aws paywalls upload`',
    });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName, description: 'TABLE_NAME for `admin --aws`' });
  }
}
