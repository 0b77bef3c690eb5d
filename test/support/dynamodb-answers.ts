import { Readable } from 'node:stream';

/**
 * What DynamoDB sends back, as bytes: an HTTP answer with this status and JSON body, for a
 * middleware at the SDK client's `deserialize` step to return in place of sending the request. The
 * SDK then parses it (a refusal into its error, an answer into its output) and retries it as it
 * would the real service's: for answers DynamoDB Local never gives (throttling, unprocessed items).
 */
export function dynamoDbAnswer(statusCode: number, body: unknown): never {
  return {
    response: {
      statusCode,
      reason: statusCode === 200 ? 'OK' : 'Bad Request',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'made-below-the-sdk' },
      body: Readable.from([Buffer.from(JSON.stringify(body))]),
    },
  } as never;
}
