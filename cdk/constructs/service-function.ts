/**
 * The one Lambda function construct: Node.js 24 on arm64, minified ESM bundled by the local
 * esbuild (AWS SDK included, not external), source maps, a log group with a retention, and a
 * role of its own that starts with nothing but writing that log group (no AWS managed policy).
 * Every function of the stack is one of these, so the defaults cannot drift between functions.
 */

import { resolve } from 'node:path';
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, type NodejsFunctionProps, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BuildOptions } from 'esbuild';
import { config, webhookConfig } from '../../lib/core/config.js';
import { TABLE } from '../../lib/data/table.js';
import type { TableAction } from '../../lib/routes.js';
import { STORE_CREDENTIAL_SECRETS, secretResourceNameOf } from '../../lib/stores/secret-names.js';
import { acknowledge } from './acknowledge.js';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
const NODE_HTTP_MODULE = resolve(REPO_ROOT, 'lib/core/node-http.ts');
const STACK_TRACES_MODULE = resolve(REPO_ROOT, 'lib/core/stack-traces-in-bundle.ts');

/**
 * esbuild settings of every function, shared with the bundle smoke test and the cold-start
 * benchmark so that what is measured is what is deployed.
 */
export const ESBUILD_SETTINGS = {
  format: 'esm',
  platform: 'node',
  target: 'node24',
  minify: true,
  sourcemap: true,
  // Maps name the original file and line in stack traces, read when a stack is first formatted
  // (lib/core/stack-traces.ts); without a copy of every source they are a third of the size.
  sourcesContent: false,
  inject: [STACK_TRACES_MODULE],
  // ESM builds of dependencies tree-shake better than their CommonJS ones (docs/decisions/bundling.md).
  mainFields: ['module', 'main'],
  // Some CommonJS dependencies call require(); give ESM bundles one.
  banner:
    "import { createRequire as __createRequire } from 'module'; const require = __createRequire(import.meta.url);",
  // node:http through require(), not an ESM import that loads undici (lib/core/node-http.ts).
  alias: { http: NODE_HTTP_MODULE, 'node:http': NODE_HTTP_MODULE },
} as const;

/** The same settings for esbuild's JS API (bundle tests, cold-start benchmark): one entry, one output file. */
export function esbuildOptions(
  entry: string,
  outfile: string,
): BuildOptions & { entryPoints: string[]; outfile: string } {
  return {
    ...ESBUILD_SETTINGS,
    mainFields: [...ESBUILD_SETTINGS.mainFields],
    inject: [...ESBUILD_SETTINGS.inject],
    banner: { js: ESBUILD_SETTINGS.banner },
    entryPoints: [resolve(REPO_ROOT, entry)],
    bundle: true,
    outfile,
    logLevel: 'silent',
  };
}

export interface ServiceFunctionProps
  extends Omit<NodejsFunctionProps, 'entry' | 'runtime' | 'architecture' | 'bundling'> {
  /** Handler module, relative to the repository root (as in lib/routes.ts). */
  handlerModule: string;
}

/**
 * A function waits for its role's policy only. Lambda's construct makes the function depend on the
 * whole role, but the function names the role by GetAtt, which orders them already: the repeated
 * DependsOn is what cfn-lint reports as W3005.
 */
export function dependOnRolePolicyOnly(fn: LambdaFunction): void {
  const role = fn.role;
  const policy = role?.node.tryFindChild('DefaultPolicy');
  if (!role || !policy) throw new Error(`${fn.node.path}: a function with a role of its own and its DefaultPolicy`);
  const resource = fn.node.defaultChild!;
  resource.node.removeDependency(role);
  resource.node.addDependency(policy);
}

/** DynamoDB actions, as IAM names without the `dynamodb:` prefix (lib/routes.ts declares them per route). */
export type { TableAction } from '../../lib/routes.js';

export class ServiceFunction extends NodejsFunction {
  /**
   * Allows exactly these DynamoDB actions on the table, and names the table. Query is the only
   * one of them that reads an index, so it alone gets the indexes, each by name (no `index/*`).
   */
  useTable(table: ITable, actions: readonly TableAction[]): this {
    this.addEnvironment('TABLE_NAME', table.tableName);
    // Every writer of a subscription files it in the due index by this margin, and the sweeper
    // expires by it: one value for all, as configured where `cdk deploy` runs.
    this.addEnvironment('STORE_EXPIRY_MARGIN_SECONDS', String(config.storeExpiryMarginSeconds));
    // Whichever function writes a webhook delivery (deliverer, retry job, redeliver) sets its TTL by it.
    this.addEnvironment('WEBHOOK_DELIVERY_RETENTION_DAYS', String(webhookConfig.webhookDeliveryRetentionDays));
    // A function that reads nothing (RevenueCat's health check) gets no statement: IAM refuses an empty one.
    if (actions.length > 0)
      this.addToRolePolicy(
        new PolicyStatement({ actions: actions.map((action) => `dynamodb:${action}`), resources: [table.tableArn] }),
      );
    if (actions.includes('Query')) {
      const indexes = Object.keys(TABLE.indexes).map((name) => `${table.tableArn}/index/${name}`);
      this.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexes }));
    }
    return this;
  }

  /**
   * Read-only access to the apps' store credentials (secrets named `<prefix><app>/<store>`), and
   * to nothing else under the prefix (the test store's signing key is the operator CLI's alone).
   */
  useStoreSecrets(prefix: string): this {
    this.addEnvironment('STORE_SECRETS_PREFIX', prefix);
    const names = STORE_CREDENTIAL_SECRETS.map((store) => secretResourceNameOf(prefix, store));
    const secrets = names.map((resourceName) =>
      Stack.of(this).formatArn({
        service: 'secretsmanager',
        resource: 'secret',
        resourceName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    );
    this.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: secrets }));
    for (const name of names) {
      acknowledge(this.role!.node.findChild('DefaultPolicy'), {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${name}]`,
        reason:
          'Store secrets are created per app at run time (admin stores ... set) and Secrets Manager suffixes every ARN randomly: only a wildcard over the app id and suffix, scoped to this stack and store, can name them.',
      });
    }
    return this;
  }

  /** Allows sending to a queue (a dead-letter queue this function or its event source writes): SendMessage only. */
  sendsTo(queue: IQueue): this {
    this.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
    return this;
  }

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { handlerModule, environment, ...rest } = props;
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Instead of AWSLambdaBasicExecutionRole (create any log group, write any log stream): its own log group only.
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${id} function`,
    });
    logGroup.grantWrite(role);
    acknowledge(role.node.findChild('DefaultPolicy'), {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only actions without resource-level permissions: X-Ray PutTraceSegments/PutTelemetryRecords (active tracing) and, for a stream event source, dynamodb:ListStreams; test/cdk/stack.test.ts fails on any other `*`.',
    });
    super(scope, id, {
      entry: resolve(REPO_ROOT, handlerModule),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: resolve(REPO_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 1024,
      timeout: Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      role,
      logGroup,
      environment,
      bundling: {
        format: OutputFormat.ESM,
        target: ESBUILD_SETTINGS.target,
        minify: ESBUILD_SETTINGS.minify,
        sourceMap: ESBUILD_SETTINGS.sourcemap,
        sourcesContent: ESBUILD_SETTINGS.sourcesContent,
        mainFields: [...ESBUILD_SETTINGS.mainFields],
        inject: [...ESBUILD_SETTINGS.inject],
        banner: ESBUILD_SETTINGS.banner,
        esbuildArgs: Object.fromEntries(
          Object.entries(ESBUILD_SETTINGS.alias).map(([from, to]) => [`--alias:${from}`, to]),
        ),
        // Bundle the AWS SDK v3 (pinned, tree-shaken) instead of the runtime's copy.
        externalModules: [],
        forceDockerBundling: false,
        // esbuild's per-bundle size summary is four lines for each of ~32 functions; warnings still show.
        logLevel: LogLevel.WARNING,
      },
      ...rest,
    });
    dependOnRolePolicyOnly(this);
  }
}
