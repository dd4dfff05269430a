/**
 * One output of the deployed stack, read with CloudFormation's DescribeStacks (the AWS query
 * protocol: a form POST, an XML answer) signed with SigV4 by the SDK's signer, with the
 * credentials and region the SDK's clients take from the environment. The operator CLI reads
 * `StoreSecretsPrefix` with it when `--aws` runs without STORE_SECRETS_PREFIX. The endpoint
 * follows AWS_ENDPOINT_URL_CLOUDFORMATION as the SDK's does. It reads no lib/ configuration: the
 * CLI sets the environment from the answer before lib/ reads it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';

const xmlText = (value: string) =>
  value.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) =>
    name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'quot' ? '"' : name === 'apos' ? "'" : '&',
  );

/** The output's value; throws with CloudFormation's own message when the stack cannot be read. */
export async function stackOutput(stackName: string, outputKey: string): Promise<string | undefined> {
  // A client only for what the SDK resolves from the environment: region, credentials, hash.
  const client = new DynamoDBClient({});
  try {
    const region = await client.config.region();
    const endpoint = new URL(
      process.env.AWS_ENDPOINT_URL_CLOUDFORMATION || `https://cloudformation.${region}.amazonaws.com`,
    );
    const body = new URLSearchParams({
      Action: 'DescribeStacks',
      StackName: stackName,
      Version: '2010-05-15',
    }).toString();
    const signer = new SignatureV4({
      service: 'cloudformation',
      region,
      credentials: client.config.credentials,
      sha256: client.config.sha256,
    });
    const signed = await signer.sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
      path: '/',
      query: {},
      headers: {
        host: endpoint.host,
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    });
    const { host: _host, ...headers } = signed.headers;
    const response = await fetch(endpoint, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
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
  } finally {
    client.destroy();
  }
}
