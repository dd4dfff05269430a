/**
 * The published AWS prices the cost model multiplies measurements by: US East (N. Virginia),
 * on-demand, the first volume tier, without free tiers. Each says where AWS publishes it and the
 * date of the source it was read from (the pricing pages render their figures client-side; the
 * figures were cross-read from the dated secondary sources named).
 */
export interface Price {
  /** US dollars per one `unit`. */
  usd: number;
  unit: string;
  source: string;
  date: string;
}

const perMillion = (usd: number) => usd / 1_000_000;

export const PRICES = {
  apiGatewayRestRequest: {
    usd: perMillion(3.5),
    unit: 'REST API call (first 333 million a month)',
    source:
      'https://aws.amazon.com/api-gateway/pricing/ ($3.50 per million REST API calls, first 333 million; as tabled in the AWS whitepaper "Best Practices for Designing Amazon API Gateway Private APIs and Private Integration", Table 4, and awsforengineers.com "AWS API Gateway Pricing Explained")',
    date: '2025-05-19',
  },
  apiGatewayRestRequestNext667M: {
    usd: perMillion(2.8),
    unit: 'REST API call (the next 667 million a month)',
    source:
      'https://aws.amazon.com/api-gateway/pricing/ (REST: first 333 million $3.50, next 667 million $2.80, next 19 billion $2.38, over 20 billion $1.51 per million; AWS whitepaper "Best Practices for Designing Amazon API Gateway Private APIs and Private Integration", Table 4)',
    date: '2025-05-19',
  },
  apiGatewayRestRequestNext19B: {
    usd: perMillion(2.38),
    unit: 'REST API call (the next 19 billion a month)',
    source:
      'https://aws.amazon.com/api-gateway/pricing/ (as the tier above; AWS whitepaper "Best Practices for Designing Amazon API Gateway Private APIs and Private Integration", Table 4)',
    date: '2025-05-19',
  },
  apiGatewayRestRequestOver20B: {
    usd: perMillion(1.51),
    unit: 'REST API call (over 20 billion a month)',
    source:
      'https://aws.amazon.com/api-gateway/pricing/ (as the tiers above; AWS whitepaper "Best Practices for Designing Amazon API Gateway Private APIs and Private Integration", Table 4)',
    date: '2025-05-19',
  },
  apiGatewayHttpRequest: {
    usd: perMillion(1),
    unit: 'HTTP API request (first 300 million a month; metered in 512 KB increments)',
    source:
      'https://aws.amazon.com/api-gateway/pricing/ ($1.00 per million HTTP API requests, first 300 million, metered in 512 KB increments; cross-read 2026-11-25 in AWS whitepaper "Best Practices for Designing Amazon API Gateway Private APIs", table 4)',
    date: '2026-11-25',
  },
  cloudFrontHttpsRequest: {
    usd: 0.01 / 10_000,
    unit: 'CloudFront HTTPS request (United States, Mexico, Canada)',
    source:
      'https://aws.amazon.com/cloudfront/pricing/ ($0.0100 per 10,000 HTTPS requests, pay-as-you-go; not cross-read here: the stored copy of the page lacks the request table)',
    date: '2026-11-25',
  },
  cloudFrontToOriginGb: {
    usd: 0.02,
    unit: 'GB sent from CloudFront to the origin (request bodies; United States, Mexico, Canada)',
    source:
      'https://aws.amazon.com/cloudfront/pricing/ ($0.020 per GB of regional data transfer out to origin, United States; not cross-read here: the stored copy of the page lacks the origin table)',
    date: '2026-11-25',
  },
  wafRequest: {
    usd: perMillion(0.6),
    unit: 'request inspected by an AWS WAF web ACL',
    source: 'https://aws.amazon.com/waf/pricing/ ($0.60 per million requests; as docs/security.md)',
    date: '2026-11-25',
  },
  wafWebAclMonth: {
    usd: 5,
    unit: 'AWS WAF web ACL, per month',
    source: 'https://aws.amazon.com/waf/pricing/ ($5.00 per web ACL per month; as docs/security.md)',
    date: '2026-11-25',
  },
  wafRuleMonth: {
    usd: 1,
    unit: 'AWS WAF rule, per month',
    source: 'https://aws.amazon.com/waf/pricing/ ($1.00 per rule per month; as docs/security.md)',
    date: '2026-11-25',
  },
  lambdaRequest: {
    usd: perMillion(0.2),
    unit: 'Lambda invocation',
    source:
      'https://aws.amazon.com/lambda/pricing/ ($0.20 per million requests, x86 and Arm alike; cloudchipr.com "AWS Lambda Pricing Breakdown: Ultimate Guide 2024")',
    date: '2024',
  },
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second of Lambda duration on arm64 (first 7.5 billion GB-s a month)',
    source:
      'https://aws.amazon.com/lambda/pricing/ (Arm: $0.0000133334 per GB-s, 20% below x86 since Graviton2 support, AWS News Blog 2021-09-29; tiers: AWS Compute Blog "Introducing tiered pricing for AWS Lambda"; cloudchipr.com guide 2024)',
    date: '2024',
  },
  dynamodbReadRequestUnit: {
    usd: perMillion(0.125),
    unit: 'DynamoDB on-demand read request unit (Standard table class)',
    source:
      'https://aws.amazon.com/dynamodb/pricing/on-demand/ ($0.125 per million RRU after the 50% on-demand throughput price cut effective 2024-11-01; airbyte.com "Amazon DynamoDB Pricing", 2025-07-21)',
    date: '2024-11-01',
  },
  dynamodbWriteRequestUnit: {
    usd: perMillion(0.625),
    unit: 'DynamoDB on-demand write request unit (Standard table class)',
    source:
      'https://aws.amazon.com/dynamodb/pricing/on-demand/ ($0.625 per million WRU after the 50% on-demand throughput price cut effective 2024-11-01; jusdb.com DynamoDB cost guide, 2025-08-19)',
    date: '2024-11-01',
  },
  dynamodbStorageGbMonth: {
    usd: 0.25,
    unit: 'GB-month of DynamoDB storage (Standard table class; items count 100 bytes of overhead each)',
    source:
      'https://aws.amazon.com/dynamodb/pricing/on-demand/ ($0.25 per GB-month after the first 25 GB; as docs/security.md#report-quotas)',
    date: '2026-11-25',
  },
  cloudWatchLogsIngestedGb: {
    usd: 0.5,
    unit: 'GB of CloudWatch Logs ingested (Standard log class)',
    source:
      'https://aws.amazon.com/cloudwatch/pricing/ ($0.50 per GB ingested, Standard class, us-east-1; c3x.dev "CloudWatch Logs cost optimization", June 2026)',
    date: '2026-06',
  },
  cloudWatchLogsStoredGbMonth: {
    usd: 0.03,
    unit: 'GB-month of CloudWatch Logs stored',
    source:
      'https://aws.amazon.com/cloudwatch/pricing/ ($0.03 per GB-month archived, us-east-1; c3x.dev "CloudWatch Logs cost optimization", June 2026)',
    date: '2026-06',
  },
  eventBridgeCustomEvent: {
    usd: perMillion(1),
    unit: 'EventBridge custom event published (each 64 KB chunk of payload)',
    source:
      'https://aws.amazon.com/eventbridge/pricing/ ($1.00 per million custom events; cloudburn.io "Amazon EventBridge Pricing", prices as of March 2026)',
    date: '2026-03-13',
  },
} as const satisfies Record<string, Price>;

/** Configured memory of every function (cdk/constructs/service-function.ts): 1024 MB = 1 GB billed. */
export const LAMBDA_MEMORY_GB = 1;

/** Lambda bills duration rounded up to the millisecond. */
export const lambdaDurationUsd = (milliseconds: number): number =>
  (Math.ceil(milliseconds) / 1000) * LAMBDA_MEMORY_GB * PRICES.lambdaArmGbSecond.usd;
