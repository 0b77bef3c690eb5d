import type { APIGatewayProxyResult } from 'aws-lambda';
import { AppError, PROBLEM_CONTENT_TYPE, problemBody } from '../kernel/errors';

/** The API Gateway response for any thrown value: problem+json, never bare text. */
export function problemResponse(error: unknown, requestId: string): APIGatewayProxyResult {
  const body = problemBody(error, requestId);
  const headers: Record<string, string> = {
    'content-type': PROBLEM_CONTENT_TYPE,
    'x-request-id': requestId,
    ...(error instanceof AppError ? error.headers : undefined),
  };
  return { statusCode: body.status, headers, body: JSON.stringify(body) };
}
