/**
 * Paywall and guide page bundles (`admin paywalls upload --aws`): zips in a private bucket of their
 * own, under `paywalls/`, served by the console's CloudFront distribution at `/paywalls/*` through
 * origin access control. Not the console's bucket: its deployment replaces that bucket's files
 * (prune) at every `cdk deploy`. A zip's key is its SHA-256, so CloudFront may cache it for a year.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  CachePolicy,
  type Distribution,
  type IResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PAYWALLS_PREFIX } from '../../lib/schemas/paywall.js';
import { acknowledge } from './acknowledge.js';
import { privateBucket } from './private-bucket.js';

export class PaywallBundles extends Construct {
  readonly bucket: Bucket;
  /** PAYWALLS_BASE_URL of the functions that answer bundles: `https://<distribution>/paywalls`. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: { distribution: Distribution; headers: IResponseHeadersPolicy }) {
    super(scope, id);
    // The operator's uploads: a stack's removal must not take them.
    this.bucket = privateBucket(this, 'Files', { removalPolicy: RemovalPolicy.RETAIN });
    acknowledge(this.bucket, {
      id: 'AwsSolutions-S1',
      reason:
        "The bucket holds the paywall bundles apps download, public by design; CloudFront is its only reader (origin access control), and the operator's uploads are in CloudTrail.",
    });
    props.distribution.addBehavior(`${PAYWALLS_PREFIX}/*`, S3BucketOrigin.withOriginAccessControl(this.bucket), {
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      responseHeadersPolicy: props.headers,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
    });
    this.baseUrl = `https://${props.distribution.distributionDomainName}/${PAYWALLS_PREFIX}`;
  }
}
