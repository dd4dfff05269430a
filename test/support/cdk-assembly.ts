/**
 * The stack as `cdk synth` makes it (cdk.json's feature flags), without esbuild (the synth script
 * bundles for real): the parent template and the template of every nested stack, and one merged
 * template for assertions that do not care which stack a resource is in.
 */
import { App, type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addNagChecks } from '../../cdk/nag.js';
import { SubscriptionBackendStack } from '../../cdk/stack.js';
import type { Route } from '../../lib/routes.js';
import { CDK_JSON_CONTEXT } from './cdk-context.js';

export type CfnTemplate = {
  Resources: Record<string, { Type: string; Properties?: Record<string, any>; [key: string]: unknown }>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, unknown>;
  Mappings?: Record<string, unknown>;
  [section: string]: unknown;
};

export interface StackTemplate {
  /** The stack's construct path: `Test`, `Test/Api/SubscriptionsApi`... */
  path: string;
  nested: boolean;
  template: CfnTemplate;
}

export interface Assembly {
  app: App;
  stack: SubscriptionBackendStack;
  /** The parent first, then each nested stack. */
  stacks: StackTemplate[];
  /**
   * Every stack's resources in one template, with the parent's outputs. A nested stack's parameter
   * is replaced by what the parent passes it, so a reference reads as in a single stack
   * (`{"Fn::GetAtt": ["DataTable…", "Arn"]}`, not `{"Ref": "referenceto…"}`).
   */
  merged: Template;
}

export interface SynthesisOptions {
  context?: Record<string, unknown>;
  routes?: readonly Route[];
  /** `Test` unless given. */
  stackName?: string;
  /** Where the cloud assembly is written (a temporary directory of the CDK's own unless given). */
  outdir?: string;
  /** Off skips CloudFormation's schema validation of the templates (about 10 s). */
  validate?: boolean;
  /**
   * What `cdk synth` adds besides: cdk-nag (cdk/app.ts: its acknowledgements in each resource's
   * metadata), the CLI's construct paths in metadata and its version-reporting resource, for
   * templates of the size and count deployed.
   */
  asDeployed?: boolean;
}

/** The context the CDK CLI gives the app on `cdk synth` and `cdk deploy` (besides cdk.json's). */
const CLI_CONTEXT = {
  'aws:cdk:enable-path-metadata': true,
  'aws:cdk:enable-asset-metadata': true,
  'aws:cdk:version-reporting': true,
};

export function synthesizeAssembly(options: SynthesisOptions = {}): Assembly {
  const app = new App({
    ...(options.outdir ? { outdir: options.outdir } : {}),
    ...(options.validate === false ? { builtinCloudFormationValidation: false } : {}),
    context: {
      ...CDK_JSON_CONTEXT,
      ...(options.asDeployed ? CLI_CONTEXT : {}),
      'aws:cdk:bundling-stacks': [],
      ...options.context,
    },
  });
  const stack = new SubscriptionBackendStack(
    app,
    options.stackName ?? 'Test',
    options.routes ? { routes: options.routes } : {},
  );
  if (options.asDeployed) addNagChecks(app);
  return assemble(app, stack);
}

/** The templates of an app's one stack and its nested stacks (synthesizes the app if it is not yet). */
export function assemble(app: App, stack: SubscriptionBackendStack): Assembly {
  const parent = Template.fromStack(stack).toJSON() as CfnTemplate;
  const nestedStacks = app.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c));
  const stacks: StackTemplate[] = [
    { path: stack.node.path, nested: false, template: parent },
    ...nestedStacks.map((nested) => ({
      path: nested.node.path,
      nested: true,
      template: Template.fromStack(nested).toJSON() as CfnTemplate,
    })),
  ];
  const resources = { ...parent.Resources };
  nestedStacks.forEach((nested, i) => {
    const parentStack = Stack.of(nested.nestedStackResource!);
    const resourceId = parentStack.resolve(parentStack.getLogicalId(nested.nestedStackResource as CfnElement));
    const passed = (parent.Resources[resourceId]?.Properties?.Parameters ?? {}) as Record<string, unknown>;
    for (const [id, resource] of Object.entries(stacks[i + 1]!.template.Resources)) {
      // Each stack's version-reporting resource (cdk synth's), with one logical id: the parent's stands for all.
      if (resource.Type === 'AWS::CDK::Metadata') continue;
      if (resources[id]) throw new Error(`logical id ${id} is in two stacks: the merged template cannot hold both`);
      resources[id] = substitute(resource, passed) as CfnTemplate['Resources'][string];
    }
  });
  return { app, stack, stacks, merged: Template.fromJSON({ Resources: resources, Outputs: parent.Outputs ?? {} }) };
}

function substitute(value: unknown, parameters: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => substitute(item, parameters));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === 'Ref' && typeof entries[0]![1] === 'string') {
    const name = entries[0]![1];
    if (name in parameters) return parameters[name];
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, substitute(item, parameters)]));
}
