/** CDK entry point (cdk.json: `tsx cdk/app.ts`). Environment-agnostic: synthesizes offline. */
import { App } from 'aws-cdk-lib';
import { DEFAULT_STACK_NAME } from '../lib/core/defaults.js';
import { addNagChecks } from './nag.js';
import { SubscriptionBackendStack } from './stack.js';

const app = new App();
new SubscriptionBackendStack(app, (app.node.tryGetContext('stackName') as string | undefined) ?? DEFAULT_STACK_NAME);
addNagChecks(app);
