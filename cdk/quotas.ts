/**
 * The AWS quotas the synthesized stack must stay within, each with where AWS states it (only API
 * Gateway's resources per API can be raised on request). test/cdk/quotas.test.ts holds every stack
 * to QUOTA_MARGIN of each, and the stack with three times today's routes to QUOTA_MARGIN of each
 * quota that cannot be raised and to the limit of the one that can: a route table nearing one
 * fails a test, not a deploy.
 */

/** The share of a quota a test allows: past 80 %, split a surface (cdk/constructs/api-surfaces.ts) first. */
export const QUOTA_MARGIN = 0.8;

export interface Quota {
  limit: number;
  /** What is counted, in the words of the source. */
  what: string;
  source: string;
  /** AWS raises it on request (Service Quotas): growth may reach the limit, then ask (docs/operations.md). */
  raisable?: true;
}

const CLOUDFORMATION_QUOTAS =
  'https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html';

export const QUOTAS = {
  resourcesPerStack: { limit: 500, what: 'resources declared in a stack', source: CLOUDFORMATION_QUOTAS },
  outputsPerStack: { limit: 200, what: 'outputs declared in a stack', source: CLOUDFORMATION_QUOTAS },
  parametersPerStack: { limit: 200, what: 'parameters declared in a stack', source: CLOUDFORMATION_QUOTAS },
  mappingsPerStack: { limit: 200, what: 'mappings declared in a stack', source: CLOUDFORMATION_QUOTAS },
  /**
   * `cdk deploy` uploads every template to the bootstrap bucket (a nested stack's is an asset,
   * and the parent's is past the 51,200 bytes a template may have inline).
   */
  templateBytes: {
    limit: 1_000_000,
    what: 'template body size in an Amazon S3 object (1 MB)',
    source: CLOUDFORMATION_QUOTAS,
  },
  apiGatewayResourcesPerRestApi: {
    limit: 300,
    what: 'resources per API (REST API), the root included',
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
    raisable: true,
  },
  inlinePoliciesPerRole: {
    limit: 10_240,
    what: 'role policy size: the aggregate of all inline policies of a role, in characters, whitespace not counted',
    source: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html',
  },
  managedPolicy: {
    limit: 6_144,
    what: 'managed policy size, in characters, whitespace not counted',
    source: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html',
  },
  lambdaEnvironment: {
    limit: 4_096,
    what: "a function's environment variables together (4 KB)",
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  },
  lambdaResourcePolicy: {
    limit: 20_480,
    what: "function resource-based policy (20 KB): every permission's statement",
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  },
  wafRegexString: {
    limit: 512,
    what: "a regex match statement's regular expression, in characters",
    source: 'https://docs.aws.amazon.com/waf/latest/APIReference/API_RegexMatchStatement.html',
  },
} as const satisfies Record<string, Quota>;

/**
 * What a reference (Ref, GetAtt, a parameter) counts for where a size is estimated before deploy:
 * an ARN of a resource whose name is at most 255 characters (a DynamoDB table's, the longest
 * here) with its prefix.
 */
export const REFERENCE_LENGTH = 320;

/**
 * The statement id CloudFormation gives a Lambda permission (the stack name, the logical id and a
 * random suffix) counts for its most, Lambda's limit on a statement id.
 */
export const PERMISSION_STATEMENT_ID_LENGTH = 100;
