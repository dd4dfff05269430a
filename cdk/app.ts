/** CDK entry point (cdk.json: `tsx cdk/app.ts`). Environment-agnostic: synthesizes offline. */
import { App } from 'aws-cdk-lib';
import { addNagChecks } from './nag.js';
import { SubscriptionBackendStack } from './stack.js';

const app = new App();
new SubscriptionBackendStack(app, (app.node.tryGetContext('stackName') as string | undefined) ?? 'SubscriptionBackend');
addNagChecks(app);
