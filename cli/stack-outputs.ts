/**
 * One output of the deployed stack, read with CloudFormation's DescribeStacks (the AWS query
 * protocol: a form POST, an XML answer) as a signed request (./signed-request.ts). The operator
 * CLI reads `StoreSecretsPrefix` with it when `--aws` runs without STORE_SECRETS_PREFIX, and
 * `PaywallsBucketName` when `paywalls upload --aws` runs without PAYWALLS_BUCKET. It reads no
 * lib/ configuration: the CLI sets the environment from the answer before lib/ reads it.
 */
import { sendSigned } from './signed-request.js';

const xmlText = (value: string) =>
  value.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) =>
    name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'quot' ? '"' : name === 'apos' ? "'" : '&',
  );

/** The output's value; throws with CloudFormation's own message when the stack cannot be read. */
export async function stackOutput(stackName: string, outputKey: string): Promise<string | undefined> {
  const body = new URLSearchParams({
    Action: 'DescribeStacks',
    StackName: stackName,
    Version: '2010-05-15',
  }).toString();
  const response = await sendSigned({
    service: 'cloudformation',
    endpointId: 'CLOUDFORMATION',
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  });
  const text = await response.text();
  if (!response.ok) {
    const message = /<Message>([\s\S]*?)<\/Message>/.exec(text)?.[1];
    throw new Error(
      `CloudFormation DescribeStacks answered ${response.status}: ${xmlText(message ?? text.slice(0, 200))}`,
    );
  }
  // One stack (named): its outputs, each a <member> with OutputKey and OutputValue in any order.
  const outputs = /<Outputs>([\s\S]*?)<\/Outputs>/.exec(text)?.[1] ?? '';
  for (const member of outputs.split(/<member>/).slice(1)) {
    const key = /<OutputKey>([\s\S]*?)<\/OutputKey>/.exec(member)?.[1];
    const value = /<OutputValue>([\s\S]*?)<\/OutputValue>/.exec(member)?.[1];
    if (key !== undefined && xmlText(key) === outputKey && value !== undefined) return xmlText(value);
  }
  return undefined;
}
