/**
 * Acknowledges cdk-nag findings (see cdk/nag.ts) on the CloudFormation resource of a construct,
 * not on the construct: an acknowledgement covers everything below it, and its reason is copied
 * into the template metadata of each. No cdk-nag import here: constructs load without it.
 */
import { type Acknowledgment, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export function acknowledge(construct: IConstruct, ...acknowledgments: Acknowledgment[]): void {
  Validations.of(construct.node.defaultChild ?? construct).acknowledge(...acknowledgments);
}
