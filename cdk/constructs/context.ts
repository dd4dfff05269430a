/** Numbers an operator sets at deploy time with `-c name=value` (cdk.json or the command line). */
import type { Node } from 'constructs';

/** A whole number from `min` to `max`, or `fallback` when the context does not set it; anything else stops synthesis. */
export function wholeNumberContext(node: Node, name: string, fallback: number, [min, max]: readonly [number, number]) {
  const raw: unknown = node.tryGetContext(name);
  const value = Number(raw ?? fallback);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`-c ${name} must be a whole number from ${min} to ${max}, got "${String(raw)}"`);
  return value;
}

/** The API's own domain, for RevenueCat's SDKs (docs/sdk-revenuecat.md): its name and its ACM certificate. */
export interface ApiDomainContext {
  domainName: string;
  certificateArn: string;
}

const DOMAIN_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]{36}$/;

/**
 * `-c apiDomainName=api.example.com -c apiCertificateArn=arn:aws:acm:…`: both or neither (none: no
 * custom domain); anything else stops synthesis, naming what is wrong.
 */
export function apiDomainContext(node: Node): ApiDomainContext | undefined {
  const domainName: unknown = node.tryGetContext('apiDomainName');
  const certificateArn: unknown = node.tryGetContext('apiCertificateArn');
  if (domainName === undefined && certificateArn === undefined) return undefined;
  if (typeof domainName !== 'string' || !DOMAIN_NAME.test(domainName))
    throw new Error(
      `-c apiDomainName must be a lowercase domain name such as api.example.com, got "${String(domainName)}"`,
    );
  if (typeof certificateArn !== 'string' || !CERTIFICATE_ARN.test(certificateArn))
    throw new Error(
      `-c apiCertificateArn must be the ARN of an ACM certificate for ${domainName} in the stack's region, got "${String(certificateArn)}"`,
    );
  return { domainName, certificateArn };
}
