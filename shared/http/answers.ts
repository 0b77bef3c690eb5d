import { errorCatalogue, type ErrorCode } from '../kernel/errors';
import { gatewayOf, gateways } from './gateways';
import type { PrincipalKind } from './principal';
import type { Access, AnyRoute, Api } from './route';

/**
 * Every status and problem code a route can answer, derived once from its manifest entry: the
 * codes it names itself (`errors`) plus what the platform answers for it before, around or after
 * its function runs. This is the ONE list: the OpenAPI documents describe exactly these responses
 * per operation (./openapi/document.ts), `npm run openapi:check` refuses a document that lists a
 * status this does not (./openapi/audit.ts), and the API suites refuse any response whose status or
 * code the document does not list (test/support/contract.ts), so the derivation cannot drift from
 * what the platform really answers. The handler stack (./handler.ts) takes its own decisions that
 * depend on the route from here too (`ignoresBody`, `invalidCodeOf`, the access codes).
 *
 * What the platform adds, by what it looks at:
 *   - input (params, query, a body, an Idempotency-Key, or a method that carries a body): 400
 *     `invalid_request`, `invalid` on the ledger;
 *   - access other than public: 401 `unauthenticated`; 403 with the route's wrong-principal code
 *     when the API's credential hook can resolve a kind the route does not admit, `forbidden` to an
 *     API key bound to a client where bound keys are not admitted, the missing-scope code when
 *     the route asks for scopes;
 *   - a body it reads: 413 `payload_too_large` (over MAX_BODY_BYTES);
 *   - an idempotency rule: 409 `idempotency_key_reuse` and `idempotency_in_flight`;
 *   - a throttled gateway (./gateways.ts): 429 `rate_limited`;
 *   - every route: 503 `bulkhead_full` (./bulkheads.ts) and 500 `internal_error`;
 *   - anything it depends on (a table, the ledger, the signing keys, a queue, or a credential to
 *     verify): 503 `service_unavailable`.
 *
 * Never per operation: 404 `not_found` and 405 `method_not_allowed` answer requests no route serves
 * (./fallback.ts); 431 `headers_too_large` and 400 for unparseable HTTP answer requests that were
 * never parsed far enough to be routed (local/gateway.ts); the documents say so once, in their
 * description. No 415 exists: a body that is not JSON is 400 `invalid_request`.
 */

/**
 * The principal kinds each API's credential hook can resolve: the wallet's (shared/wallet/auth/
 * credentials.ts) serves the wallet, auth and console APIs; the ledger's
 * (shared/ledger/consumer-auth.ts) resolves registered consumers only.
 */
export const CREDENTIAL_KINDS: Record<Api, readonly PrincipalKind[]> = {
  wallet: ['api_key', 'user_token', 'idp_user', 'platform_staff', 'vendor_support', 'partner_admin', 'tenant_staff'],
  auth: ['api_key', 'user_token', 'idp_user', 'platform_staff', 'vendor_support', 'partner_admin', 'tenant_staff'],
  console: ['api_key', 'user_token', 'idp_user', 'platform_staff', 'vendor_support', 'partner_admin', 'tenant_staff'],
  ledger: ['ledger_consumer'],
};

/** Why the platform answers a code on a route; `route`: the route's own `errors`. */
export type AnswerReason =
  | 'route'
  | 'input'
  | 'credential'
  | 'principal'
  | 'bound_key'
  | 'scope'
  | 'body_size'
  | 'idempotency'
  | 'throttle'
  | 'bulkhead'
  | 'dependency'
  | 'internal';

/** What a reason means, for the response descriptions of the documents. */
export const REASONS: Record<AnswerReason, string> = {
  route: '',
  input: 'a path parameter, query parameter, body or header the operation refuses',
  credential: 'no valid credential',
  principal: 'a credential of a kind this operation does not admit',
  bound_key: 'an API key bound to a client, which acts on its client only',
  scope: 'a credential without any of the scopes the operation requires',
  body_size: 'a body over 256 KiB',
  idempotency: 'an Idempotency-Key used for another request, or one whose request is still running',
  throttle: "the gateway's throttle",
  bulkhead: "the operation's concurrency limit",
  dependency: 'a table, the ledger or a key service that did not answer in time',
  internal: 'an unexpected failure, with nothing of it disclosed',
};

export interface ProblemAnswer {
  code: ErrorCode;
  status: number;
  /** Every reason the code is answered here, the route's own first. */
  reasons: AnswerReason[];
}

/** The ledger API answers malformed input with its own catalogue code, `invalid`. */
export const invalidCodeOf = (route: Pick<AnyRoute, 'api'>): ErrorCode => (route.api === 'ledger' ? 'invalid' : 'invalid_request');

/** A read or a delete without a body schema ignores whatever body it was sent, as HTTP has them. */
export const ignoresBody = (route: Pick<AnyRoute, 'method' | 'request'>): boolean =>
  !route.request.body && (route.method === 'GET' || route.method === 'DELETE');

type Restricted = Exclude<Access, 'public'>;

/** The code answered to a principal kind the route does not admit. */
export const wrongPrincipalCode = (access: Restricted): ErrorCode => access.wrongPrincipal ?? 'forbidden';
/** The code answered to an admitted kind without the scopes. */
export const missingScopeCode = (access: Restricted): ErrorCode => access.missingScope ?? 'insufficient_scope';

/** The route's problems: the platform's checks first, in the order they run, then the route's own codes. */
export function problemAnswersOf(route: AnyRoute): ProblemAnswer[] {
  const answers = new Map<ErrorCode, AnswerReason[]>();
  const add = (code: ErrorCode, reason: AnswerReason) => {
    const reasons = answers.get(code);
    if (!reasons) answers.set(code, [reason]);
    else if (!reasons.includes(reason)) reasons.push(reason);
  };

  const readsBody = !ignoresBody(route);
  if (route.request.params || route.request.query || route.idempotency || readsBody) add(invalidCodeOf(route), 'input');
  if (route.access !== 'public') {
    const access = route.access;
    add('unauthenticated', 'credential');
    if (CREDENTIAL_KINDS[route.api].some((kind) => !access.principals.includes(kind))) add(wrongPrincipalCode(access), 'principal');
    if (access.principals.includes('api_key') && access.boundKeys !== true) add('forbidden', 'bound_key');
    if (access.scopes.length > 0) add(missingScopeCode(access), 'scope');
  }
  if (readsBody) add('payload_too_large', 'body_size');
  route.errors.forEach((code) => add(code, 'route'));
  if (route.idempotency) {
    add('idempotency_key_reuse', 'idempotency');
    add('idempotency_in_flight', 'idempotency');
  }
  if (gateways[gatewayOf(route.api)].throttle) add('rate_limited', 'throttle');
  add('bulkhead_full', 'bulkhead');
  if (dependsOnServices(route)) add('service_unavailable', 'dependency');
  add('internal_error', 'internal');

  return [...answers].map(([code, reasons]) => ({
    code,
    status: errorCatalogue[code].status,
    // The route's own naming comes first: it is the reason a reader looks for.
    reasons: reasons.includes('route') ? ['route', ...reasons.filter((reason) => reason !== 'route')] : reasons,
  }));
}

/**
 * A route that reads a table, calls the ledger, signs tokens, sends to a queue or verifies a
 * credential (API keys are looked up, tokens checked against signing keys) can find one of them
 * not answering: 503 `service_unavailable` (the store's retries exhausted, the ledger or a key
 * service down, and API Gateway's integration timeout).
 */
function dependsOnServices(route: AnyRoute): boolean {
  return (
    route.access !== 'public' ||
    Object.keys(route.tables).length > 0 ||
    (route.capabilities?.length ?? 0) > 0 ||
    (route.sendsTo?.length ?? 0) > 0
  );
}

/** The route's problem codes grouped by status, statuses ascending, codes in alphabetical order. */
export function problemsByStatus(route: AnyRoute): [number, ProblemAnswer[]][] {
  const byStatus = new Map<number, ProblemAnswer[]>();
  for (const answer of problemAnswersOf(route)) byStatus.set(answer.status, [...(byStatus.get(answer.status) ?? []), answer]);
  for (const answers of byStatus.values()) answers.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}

/** The statuses a route answers with its response body: its success status and the `also` ones. */
export const successStatusesOf = (route: AnyRoute): number[] => [route.response.status, ...(route.response.also ?? []).map((also) => also.status)];

/** Every status the route can answer, and the problem codes of each error status. */
export function answersOf(route: AnyRoute): Map<number, ErrorCode[] | 'success'> {
  const answers = new Map<number, ErrorCode[] | 'success'>();
  for (const status of successStatusesOf(route)) answers.set(status, 'success');
  for (const [status, problems] of problemsByStatus(route)) {
    if (answers.has(status)) throw new Error(`${route.operationId}: error status ${status} is also a success status`);
    answers.set(status, problems.map((problem) => problem.code));
  }
  return answers;
}
