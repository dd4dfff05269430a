/**
 * A local stand-in for CloudFormation's DescribeStacks (the AWS query protocol: a form POST, an XML
 * answer): checks the request's SigV4 signature by signing it again with the credentials it
 * expects, and answers as CloudFormation does: the named stack with its outputs, or 400
 * ValidationError "Stack with id … does not exist", or 403 for a bad signature.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from './secrets-manager-standin.js';
import { signedAsExpected } from './sigv4-check.js';

export interface CloudFormationStandIn {
  url: string;
  /** Stack name -> its outputs (OutputKey -> OutputValue). */
  stacks: Map<string, Record<string, string>>;
  /** Stack names asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

const xmlEscape = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
const NS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

export async function startCloudFormationStandIn(
  credentials: { accessKeyId: string; secretAccessKey: string },
  region: string,
): Promise<CloudFormationStandIn> {
  const signer = new SignatureV4({ service: 'cloudformation', region, credentials, sha256: Sha256 });
  const stacks = new Map<string, Record<string, string>>();
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = (status: number, xml: string) =>
        response.writeHead(status, { 'content-type': 'text/xml' }).end(`<?xml version="1.0"?>\n${xml}`);
      const error = (status: number, code: string, message: string) =>
        answer(
          status,
          `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>0</RequestId></ErrorResponse>`,
        );
      if (!(await signedAsExpected(signer, request, body)))
        return error(
          403,
          'SignatureDoesNotMatch',
          'The request signature we calculated does not match the signature you provided.',
        );
      const form = new URLSearchParams(body);
      if (form.get('Action') !== 'DescribeStacks' || form.get('Version') !== '2010-05-15')
        return error(400, 'InvalidAction', `Could not find operation ${form.get('Action')}`);
      const name = form.get('StackName') ?? '';
      requests.push(name);
      const outputs = stacks.get(name);
      if (!outputs) return error(400, 'ValidationError', `Stack with id ${name} does not exist`);
      const members = Object.entries(outputs)
        .map(
          ([key, value]) =>
            `<member><Description>an output</Description><OutputKey>${xmlEscape(key)}</OutputKey><OutputValue>${xmlEscape(value)}</OutputValue></member>`,
        )
        .join('');
      answer(
        200,
        `<DescribeStacksResponse xmlns="${NS}"><DescribeStacksResult><Stacks><member><StackName>${xmlEscape(name)}</StackName><Tags/><Outputs>${members}</Outputs><StackStatus>CREATE_COMPLETE</StackStatus></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>0</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stacks,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
