/** The whole backend in one stack, composed of a construct per concern. */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Api } from './constructs/api.js';
import { DataStore } from './constructs/data.js';
import { Notifications } from './constructs/notifications.js';
import { ApiFirewall } from './constructs/waf.js';

export class SubscriptionBackendStack extends Stack {
  readonly data: DataStore;
  readonly api: Api;
  readonly notifications: Notifications;
  readonly firewall: ApiFirewall;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, { description: 'Self-hosted subscription backend', ...props });
    this.data = new DataStore(this, 'Data');
    // Store credentials: one Secrets Manager secret per app and store, written by `admin --aws stores ... set`.
    const storeSecretsPrefix = `subscription-backend/${this.stackName}/`;
    this.api = new Api(this, 'Api', { table: this.data.table, storeSecretsPrefix });
    this.firewall = new ApiFirewall(this, 'Firewall', { stage: this.api.restApi.deploymentStage });
    new CfnOutput(this, 'StoreSecretsPrefix', {
      value: storeSecretsPrefix,
      description: 'STORE_SECRETS_PREFIX for `admin --aws stores ... set`',
    });
    this.notifications = new Notifications(this, 'Notifications', { table: this.data.table, storeSecretsPrefix });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName, description: 'TABLE_NAME for `admin --aws`' });
  }
}
