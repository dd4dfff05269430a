/**
 * AWS WAF in front of the REST API stage: app-wide protection against a flood that per-user
 * counting cannot stop (made-up X-USER-IDs with a public sdk key each get their own window).
 *
 * - default: a REGIONAL web ACL created here, with one rule: a per-IP rate-based rule blocking an
 *   address past `wafRateLimit` requests (default 2,000) in 5 minutes with 429 RATE_LIMITED in
 *   both APIs' envelopes (what API Gateway's own throttle answers), associated with the stage;
 * - `-c webAclArn=arn:...`: the operator's own regional web ACL is associated instead;
 * - `-c waf=false`: no web ACL (the stage throttle and the per-key and per-user limits remain).
 *
 * No AWS managed rule group: its common rule set blocks bodies over 8 KB (event batches may be
 * 1 MB) and matches XSS/SQL patterns in free text users report; every input here is parsed by a
 * schema and stored, never rendered or run. Cost and reasoning: docs/security.md.
 */
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { AppError } from '../../lib/core/errors.js';
import { errorBody } from '../../lib/http/envelopes.js';
import { acknowledge } from './acknowledge.js';

/** Requests one IP address may send in WAF_WINDOW_SECONDS before WAF blocks it (-c wafRateLimit=…). */
export const DEFAULT_WAF_RATE_LIMIT = 2000;
export const WAF_WINDOW_SECONDS = 300;
/** What AWS WAF accepts as a rate-based rule's limit. */
const WAF_LIMIT_RANGE = [10, 2_000_000_000] as const;

/**
 * The body of WAF's 429: like the errors API Gateway answers itself (cdk/constructs/api.ts), one
 * body in both APIs' envelopes, since WAF cannot tell which API a request was meant for.
 */
export function wafRateLimitedBody(limit: number): string {
  const error = new AppError(
    'RATE_LIMITED',
    `Too many requests from this address: more than ${limit} in ${WAF_WINDOW_SECONDS / 60} minutes`,
    { retryable: true },
  );
  return JSON.stringify({ ...errorBody('subscriptions', error, ''), ...errorBody('mobile', error, '') });
}

function readRateLimit(value: unknown): number {
  const limit = Number(value ?? DEFAULT_WAF_RATE_LIMIT);
  if (!Number.isInteger(limit) || limit < WAF_LIMIT_RANGE[0] || limit > WAF_LIMIT_RANGE[1]) {
    throw new Error(
      `-c wafRateLimit must be a whole number from ${WAF_LIMIT_RANGE[0]} to ${WAF_LIMIT_RANGE[1]}, got "${value}"`,
    );
  }
  return limit;
}

export class ApiFirewall extends Construct {
  /** The web ACL this stack created; undefined with -c waf=false or -c webAclArn=…. */
  readonly webAcl: CfnWebACL | undefined;

  constructor(scope: Construct, id: string, props: { stage: Stage }) {
    super(scope, id);
    const operatorWebAclArn = this.node.tryGetContext('webAclArn') as string | undefined;
    const enabled = String(this.node.tryGetContext('waf') ?? 'true') !== 'false';
    if (operatorWebAclArn) {
      new CfnWebACLAssociation(this, 'Association', {
        resourceArn: props.stage.stageArn,
        webAclArn: operatorWebAclArn,
      });
      return;
    }
    if (!enabled) {
      acknowledge(props.stage, {
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF turned off with -c waf=false: floods meet the stage throttle; every API request needs a valid API key, each secret key and each mobile user has its rate limit; a store notification is verified before anything but its app is read.',
      });
      return;
    }
    const limit = readRateLimit(this.node.tryGetContext('wafRateLimit'));
    const metrics = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: 'Subscription backend API: per-IP rate limit',
      defaultAction: { allow: {} },
      visibilityConfig: metrics('subscription-backend-api'),
      customResponseBodies: {
        RateLimited: {
          contentType: 'APPLICATION_JSON',
          content: wafRateLimitedBody(limit),
        },
      },
      rules: [
        {
          name: 'PerIpRateLimit',
          priority: 0,
          statement: {
            rateBasedStatement: { limit, evaluationWindowSec: WAF_WINDOW_SECONDS, aggregateKeyType: 'IP' },
          },
          action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'RateLimited' } } },
          visibilityConfig: metrics('subscription-backend-per-ip-rate-limit'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
