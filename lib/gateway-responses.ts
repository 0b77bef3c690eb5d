import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { AppError, errorCatalogue, PROBLEM_CONTENT_TYPE, problemBody, type ErrorCode } from '../shared/kernel/errors';

/**
 * What API Gateway itself answers (before or instead of a Lambda) mapped onto the error catalogue,
 * so no bare-text error ever leaves an API: every gateway-made error is an
 * `application/problem+json` body `{type,title,status,detail,code,request_id}` like the ones the
 * functions write. DEFAULT_4XX and DEFAULT_5XX catch any response type not listed here.
 */
export interface GatewayProblem {
  type: apigateway.ResponseType;
  code: ErrorCode;
  detail: string;
  /** Seconds a client should wait; sets Retry-After. */
  retryAfterSeconds?: number;
}

export const gatewayProblems: readonly GatewayProblem[] = [
  { type: apigateway.ResponseType.DEFAULT_4XX, code: 'invalid_request', detail: 'The request could not be processed.' },
  { type: apigateway.ResponseType.DEFAULT_5XX, code: 'internal_error', detail: 'An internal error occurred.' },
  // With a {proxy+} and ANY fallback on every routed resource this is left for paths that stop on
  // an intermediate resource (e.g. /v1): API Gateway calls a missing method a missing token.
  { type: apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN, code: 'not_found', detail: 'No operation is served at this path.' },
  { type: apigateway.ResponseType.RESOURCE_NOT_FOUND, code: 'not_found', detail: 'No operation is served at this path.' },
  // A private API's resource policy refusing a caller outside the VPC endpoint.
  { type: apigateway.ResponseType.ACCESS_DENIED, code: 'forbidden', detail: 'This API does not accept requests from here.' },
  { type: apigateway.ResponseType.UNAUTHORIZED, code: 'unauthenticated', detail: 'A valid credential is required.' },
  { type: apigateway.ResponseType.BAD_REQUEST_BODY, code: 'invalid_request', detail: 'The request body is not valid.' },
  { type: apigateway.ResponseType.BAD_REQUEST_PARAMETERS, code: 'invalid_request', detail: 'The request parameters are not valid.' },
  { type: apigateway.ResponseType.REQUEST_TOO_LARGE, code: 'payload_too_large', detail: 'The request body is too large.' },
  { type: apigateway.ResponseType.THROTTLED, code: 'rate_limited', detail: 'Too many requests; retry later.', retryAfterSeconds: 1 },
  { type: apigateway.ResponseType.QUOTA_EXCEEDED, code: 'rate_limited', detail: 'Request quota exceeded; retry later.', retryAfterSeconds: 60 },
  { type: apigateway.ResponseType.WAF_FILTERED, code: 'forbidden', detail: 'The request was refused.' },
  // 504 from API Gateway: the function may still finish, so the client retries with its
  // Idempotency-Key (retryable code) rather than assuming nothing happened.
  { type: apigateway.ResponseType.INTEGRATION_TIMEOUT, code: 'service_unavailable', detail: 'The operation did not answer in time; retry with the same Idempotency-Key.', retryAfterSeconds: 1 },
  // A function at its reserved concurrency (its bulkhead, shared/http/bulkheads.ts) is throttled
  // by Lambda before it runs; API Gateway reports that as an integration failure.
  { type: apigateway.ResponseType.INTEGRATION_FAILURE, code: 'bulkhead_full', detail: 'This operation is at its concurrency limit; retry shortly.', retryAfterSeconds: 1 },
];

const REQUEST_ID = '__REQUEST_ID__';

/**
 * The mapping template: the same `problemBody` the functions write (so `retryable` and every
 * field match), with API Gateway's own request id substituted at response time.
 */
export function problemTemplate(problem: GatewayProblem): string {
  const body = problemBody(new AppError(problem.code, problem.detail), REQUEST_ID);
  return JSON.stringify(body).replace(`"${REQUEST_ID}"`, '"$context.requestId"');
}

export function addGatewayProblems(api: apigateway.RestApi): apigateway.GatewayResponse[] {
  return gatewayProblems.map((problem) => {
    const headers: Record<string, string> = { 'Content-Type': `'${PROBLEM_CONTENT_TYPE}'` };
    if (problem.retryAfterSeconds !== undefined) headers['Retry-After'] = `'${problem.retryAfterSeconds}'`;
    return api.addGatewayResponse(`Problem${problem.type.responseType}`, {
      type: problem.type,
      statusCode: String(errorCatalogue[problem.code].status),
      responseHeaders: headers,
      // API Gateway picks the template by content type and falls back to application/json; the
      // Content-Type header above is what the client sees.
      templates: { 'application/json': problemTemplate(problem) },
    });
  });
}
