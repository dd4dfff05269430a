/**
 * cdk-nag's AwsSolutions pack, registered the same way by cdk/app.ts (every synth and deploy) and
 * test/cdk/nag.test.ts (the gate). An unacknowledged error stops synthesis, a warning is printed;
 * verbose adds each rule's explanation for operators, and every acknowledgement (made next to its
 * resource with cdk/constructs/acknowledge.ts) is copied with its reason into that resource's
 * template metadata (`cdk_nag.rules_to_suppress`) as an audit trail.
 */
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

export function addNagChecks(app: App): AwsSolutionsChecks {
  const pack = new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true });
  Validations.of(app).addPlugins(pack);
  return pack;
}
