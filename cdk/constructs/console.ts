/**
 * The operator console (console/): its files in a private S3 bucket, served by CloudFront through
 * origin access control, HTTPS only, with the console's security headers (the same
 * Content-Security-Policy `npm start` sends, its connect-src the API alone). The API's URL is
 * written into index.html by the deployment (console/build.ts), and the API allows this origin,
 * and no other, in CORS (lib/http/cors.ts; the Api construct's browserOrigins).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CfnElement, Duration, Lazy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildConsole, consoleContentSecurityPolicy, consoleHtml } from '../../console/build.js';
import { acknowledge } from './acknowledge.js';
import { privateBucket } from './private-bucket.js';
import { dependOnRolePolicyOnly } from './service-function.js';

export class OperatorConsole extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** The console's security headers (nosniff, no framing, strict CSP), for whatever else it serves. */
  readonly headers: ResponseHeadersPolicy;
  /** `https://<distribution>.cloudfront.net`: the origin the API allows in CORS. */
  readonly origin: string;
  private apiOrigin: string | undefined;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = privateBucket(this, 'Files');
    acknowledge(this.bucket, {
      id: 'AwsSolutions-S1',
      reason:
        "The bucket holds the console's build output, which anyone may load; CloudFront is its only reader (origin access control), and the API calls the console makes are in API Gateway's access log.",
    });
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Subscription backend console: strict CSP (connect-src the API only)',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: Lazy.string({
            produce: () => {
              if (!this.apiOrigin) throw new Error('OperatorConsole: call connectTo(api) to name the API it calls');
              return consoleContentSecurityPolicy(this.apiOrigin);
            },
          }),
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Subscription backend operator console',
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      },
    });
    acknowledge(
      this.distribution,
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Operators sign in from wherever they are; the secret key, not the location, is the access control.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Static files only: every request that reads or changes data goes to the API, which has its own WAF web ACL (cdk/constructs/waf.ts).',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          "Static files only; the API calls the console makes are in API Gateway's access log. CloudFront standard logs would need an ACL-enabled bucket.",
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution's default *.cloudfront.net certificate; TLSv1.2_2021 applies once an operator attaches their own domain and certificate (docs/console.md).",
      },
    );
    this.headers = headers;
    this.origin = `https://${this.distribution.distributionDomainName}`;
  }

  /** The API the console calls: its CSP's connect-src, and its URL written into index.html at deploy. */
  connectTo(api: RestApi): void {
    const stack = Stack.of(this);
    // From the RestApi alone (not its stage's URL): the stage depends on the functions, which depend on this origin.
    this.apiOrigin = `https://${api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    const files = mkdtempSync(join(tmpdir(), 'console-'));
    for (const [name, file] of buildConsole({ apiUrl: '' })) {
      if (name !== 'index.html') writeFileSync(join(files, name), file.body);
    }
    const deployment = new BucketDeployment(this, 'Deploy', {
      sources: [Source.asset(files), Source.data('index.html', consoleHtml(api.url))],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
    });
    acknowledgeUploader(stack, deployment, this.bucket);
  }
}

/** CDK's own uploader (one function per stack and memory size): its grants are CDK's, scoped to the two buckets. */
function acknowledgeUploader(stack: Stack, deployment: BucketDeployment, bucket: Bucket): void {
  const uploader = stack.node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!(uploader instanceof LambdaFunction))
    throw new Error('OperatorConsole: the BucketDeployment function was not found');
  dependOnRolePolicyOnly(uploader);
  const reason =
    "CDK's BucketDeployment uploader: it copies the console from the CDK assets bucket into the console bucket and invalidates the distribution, with CDK's own grants (object wildcards on those two buckets only; CloudFront invalidations have no resource ARN).";
  acknowledge(uploader, {
    id: 'AwsSolutions-L1',
    reason: "CDK's BucketDeployment runs on the Python runtime CDK pins for it; it runs only during a deploy.",
  });
  acknowledge(deployment.handlerRole, {
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason,
  });
  const policy = deployment.handlerRole.node.tryFindChild('DefaultPolicy');
  if (!policy) throw new Error("OperatorConsole: the uploader's policy was not found");
  for (const finding of [
    'Action::s3:GetBucket*',
    'Action::s3:GetObject*',
    'Action::s3:List*',
    'Action::s3:Abort*',
    'Action::s3:DeleteObject*',
    'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
    `Resource::<${stack.getLogicalId(bucket.node.defaultChild as CfnElement)}.Arn>/*`,
    'Resource::*',
  ]) {
    acknowledge(policy, { id: `AwsSolutions-IAM5[${finding}]`, reason });
  }
}
