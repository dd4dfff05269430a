/** A handler for the gateway's timeout test only: answers after `?delay_ms=` milliseconds. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const delayMs = Number(event.queryStringParameters?.delay_ms ?? 0);
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ slept_ms: delayMs }),
  };
}
