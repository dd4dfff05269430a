/** Calls a handler module in-process with an API Gateway proxy event, as the local gateway does. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult | void>;

export async function invokeGet(handler: Handler, path: string, secretKey: string, query: Record<string, string>): Promise<APIGatewayProxyResult> {
  const result = await handler(
    {
      resource: path, path, httpMethod: 'GET', headers: { Authorization: `Bearer ${secretKey}` }, multiValueHeaders: {},
      queryStringParameters: query, multiValueQueryStringParameters: null, pathParameters: null, stageVariables: null,
      body: null, isBase64Encoded: false, requestContext: { requestId: 'bench' } as APIGatewayProxyEvent['requestContext'],
    },
    { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context,
  );
  if (!result) throw new Error('handler returned nothing');
  return result;
}
