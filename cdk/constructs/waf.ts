/**
 * AWS WAF in front of the REST APIs' stages: app-wide protection against a flood that per-user
 * counting cannot stop (made-up X-USER-IDs with a public sdk key each get their own window).
 *
 * - default: a REGIONAL web ACL created here, associated with both REST APIs' stages, with three
 *   rate-based rules: every path but the store notification routes and RevenueCat's dialect, per
 *   IP address, `wafRateLimit` requests (default 2,000) in 5 minutes, answering 429 RATE_LIMITED in
 *   both APIs' envelopes (what API Gateway's own throttle answers); the store notification routes,
 *   per IP address and path (one app's route of one store), `wafNotificationRateLimit` (default
 *   10,000), likewise (the stores post every tenant's notifications from a few addresses: counted
 *   per IP alone, busy tenants together would get a store's address blocked for all of them, and a
 *   few junk senders could not be told apart); RevenueCat's dialect, per IP address,
 *   `wafRateLimit`, answering 503 in its envelope, as its handlers answer what may succeed later;
 * - `-c webAclArn=arn:...`: the operator's own regional web ACL is associated (with both stages) instead;
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
import { REVENUECAT_PREFIXES, revenuecatErrorBody } from '../../lib/http/revenuecat.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { acknowledge } from './acknowledge.js';
import { STAGE_NAME } from './api-surface.js';
import type { RestApiKey } from './api-surfaces.js';
import { wholeNumberContext } from './context.js';

/** Requests one IP address may send in WAF_WINDOW_SECONDS before WAF blocks it (-c wafRateLimit=…). */
export const DEFAULT_WAF_RATE_LIMIT = 2000;
/** Requests one IP address may send to one notification route (store and app) in WAF_WINDOW_SECONDS (-c wafNotificationRateLimit=…). */
export const DEFAULT_WAF_NOTIFICATION_RATE_LIMIT = 10_000;

/**
 * The store notification routes' paths as WAF sees them (the stage name first on the execute-api
 * URL, none through a custom domain): every `api: 'notifications'` route, its `{app_id}` any one
 * segment.
 */
export function notificationPathPattern(routes: readonly Route[] = ROUTES): string {
  const paths = routes
    .filter((route) => route.api === 'notifications')
    .map((route) => route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/]+\}/g, '[^/]+'));
  return `^(/${STAGE_NAME})?(${paths.join('|')})/?$`;
}
/**
 * The paths of RevenueCat's dialect as WAF sees them: a refusal there must be a 503, since any 4xx
 * to `POST /v1/receipts` makes the SDKs finish the purchase and never send it again.
 */
export function revenuecatPathPattern(): string {
  return `^(/${STAGE_NAME})?(${REVENUECAT_PREFIXES.join('|')})(/.*)?$`;
}
export const WAF_WINDOW_SECONDS = 300;

/** What AWS WAF accepts as a rate-based rule's limit. */
const WAF_LIMIT_RANGE = [10, 2_000_000_000] as const;

/**
 * The body of WAF's 429: like the errors API Gateway answers itself (cdk/constructs/api.ts), one
 * body in both APIs' envelopes, since WAF cannot tell which API a request was meant for.
 */
export function wafRateLimitedBody(limit: number): string {
  const error = wafRateLimited(limit);
  return JSON.stringify({ ...errorBody('subscriptions', error, ''), ...errorBody('mobile', error, '') });
}

/** The body of WAF's 503 on RevenueCat's dialect, in its envelope. */
export function wafRevenueCatRateLimitedBody(limit: number): string {
  return JSON.stringify(revenuecatErrorBody(wafRateLimited(limit), ''));
}

const wafRateLimited = (limit: number) =>
  new AppError(
    'RATE_LIMITED',
    `Too many requests from this address: more than ${limit} in ${WAF_WINDOW_SECONDS / 60} minutes`,
    { retryable: true },
  );

export class ApiFirewall extends Construct {
  /** The web ACL this stack created; undefined with -c waf=false or -c webAclArn=…. */
  readonly webAcl: CfnWebACL | undefined;

  constructor(
    scope: Construct,
    id: string,
    props: { stages: Readonly<Record<RestApiKey, Stage>>; routes?: readonly Route[] },
  ) {
    super(scope, id);
    const operatorWebAclArn = this.node.tryGetContext('webAclArn') as string | undefined;
    const enabled = String(this.node.tryGetContext('waf') ?? 'true') !== 'false';
    // The service's stage keeps the association's id it always had.
    const associate = (webAclArn: string) => {
      new CfnWebACLAssociation(this, 'Association', { resourceArn: props.stages.service.stageArn, webAclArn });
      new CfnWebACLAssociation(this, 'RevenueCatAssociation', {
        resourceArn: props.stages.revenuecat.stageArn,
        webAclArn,
      });
    };
    if (operatorWebAclArn) {
      associate(operatorWebAclArn);
      return;
    }
    if (!enabled) {
      for (const stage of Object.values(props.stages))
        acknowledge(stage, {
          id: 'AwsSolutions-APIG3',
          reason:
            'WAF turned off with -c waf=false: floods meet the stage throttle; every API request needs a valid API key, each secret key and each mobile user has its rate limit; a store notification is verified before anything but its app is read.',
        });
      return;
    }
    const limit = wholeNumberContext(this.node, 'wafRateLimit', DEFAULT_WAF_RATE_LIMIT, WAF_LIMIT_RANGE);
    const notificationLimit = wholeNumberContext(
      this.node,
      'wafNotificationRateLimit',
      DEFAULT_WAF_NOTIFICATION_RATE_LIMIT,
      WAF_LIMIT_RANGE,
    );
    const notificationRoute = {
      regexMatchStatement: {
        regexString: notificationPathPattern(props.routes),
        fieldToMatch: { uriPath: {} },
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    const revenuecatRoute = {
      regexMatchStatement: {
        regexString: revenuecatPathPattern(),
        fieldToMatch: { uriPath: {} },
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    const block = { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'RateLimited' } } };
    const metrics = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: 'Subscription backend API: per-IP rate limits, store notifications per IP and route',
      defaultAction: { allow: {} },
      visibilityConfig: metrics('subscription-backend-api'),
      customResponseBodies: {
        RateLimited: {
          contentType: 'APPLICATION_JSON',
          content: wafRateLimitedBody(limit),
        },
        RevenueCatRateLimited: {
          contentType: 'APPLICATION_JSON',
          content: wafRevenueCatRateLimitedBody(limit),
        },
      },
      rules: [
        {
          name: 'PerIpRateLimit',
          priority: 0,
          statement: {
            rateBasedStatement: {
              limit,
              evaluationWindowSec: WAF_WINDOW_SECONDS,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                notStatement: { statement: { orStatement: { statements: [notificationRoute, revenuecatRoute] } } },
              },
            },
          },
          action: block,
          visibilityConfig: metrics('subscription-backend-per-ip-rate-limit'),
        },
        {
          name: 'NotificationsPerIpAndRoute',
          priority: 1,
          statement: {
            rateBasedStatement: {
              limit: notificationLimit,
              evaluationWindowSec: WAF_WINDOW_SECONDS,
              aggregateKeyType: 'CUSTOM_KEYS',
              customKeys: [{ ip: {} }, { uriPath: { textTransformations: [{ priority: 0, type: 'NONE' }] } }],
              scopeDownStatement: notificationRoute,
            },
          },
          action: block,
          visibilityConfig: metrics('subscription-backend-notifications-rate-limit'),
        },
        {
          // RevenueCat's dialect, per IP address as the rest, but refused as "later" (503). No
          // Retry-After: WAF would prefix the header's name.
          name: 'RevenueCatPerIpRateLimit',
          priority: 2,
          statement: {
            rateBasedStatement: {
              limit,
              evaluationWindowSec: WAF_WINDOW_SECONDS,
              aggregateKeyType: 'IP',
              scopeDownStatement: revenuecatRoute,
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: 503,
                customResponseBodyKey: 'RevenueCatRateLimited',
              },
            },
          },
          visibilityConfig: metrics('subscription-backend-revenuecat-per-ip-rate-limit'),
        },
      ],
    });
    associate(this.webAcl.attrArn);
  }
}
