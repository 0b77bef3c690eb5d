/**
 * The one error catalogue. Every error body the platform writes, on every API, comes from here:
 * a stable `code`, its HTTP status and title. Clients branch on `code`; `title` and `detail` are
 * for people. Domain code throws `AppError` with a catalogue code; only `problemBody` below turns it
 * into bytes, and a thrown unknown error becomes `internal_error` with nothing of it leaked.
 */

export const errorCatalogue = {
  // Spec part 7: wallet and auth APIs.
  unauthenticated: { status: 401, title: 'Authentication required' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  scope_exceeds_key: { status: 403, title: 'Requested scope exceeds the API key' },
  forbidden: { status: 403, title: 'Not allowed for this credential kind' },
  not_client_member: { status: 403, title: 'No authority over this client' },
  platform_scope_only: { status: 403, title: 'Platform staff only' },
  global_read_only: { status: 403, title: 'Cross-tenant read requires platform:read' },
  partner_admin_required: { status: 403, title: 'Partner administrator required' },
  consumer_token_required: { status: 403, title: 'Consumer token required' },
  invalid_request: { status: 400, title: 'Invalid request' },
  client_not_found: { status: 404, title: 'Client not found' },
  offering_not_found: { status: 404, title: 'Offering not found' },
  not_found: { status: 404, title: 'Not found' },
  user_not_found: { status: 404, title: 'User not found' },
  tenant_not_found: { status: 404, title: 'Tenant not found' },
  idempotency_key_reuse: { status: 409, title: 'Idempotency key reused with a different request' },
  conflict: { status: 409, title: 'Conflict' },
  invalid_transition: { status: 409, title: 'Invalid state transition' },
  rule_exists: { status: 409, title: 'A rule already occupies this slot' },
  support_access_already_active: { status: 409, title: 'Support access already active' },
  not_a_plan: { status: 422, title: 'Offering is not a plan' },
  user_not_business: { status: 422, title: 'User is not a business' },
  credit_limit_below_balance: { status: 422, title: 'Credit limit below the drawn balance' },
  rate_limited: { status: 429, title: 'Too many requests' },
  bulkhead_full: { status: 503, title: 'Service overloaded' },

  // Ledger API codes (spec part 7; statuses are our decision, docs/decisions.md).
  invalid: { status: 400, title: 'Invalid ledger request' },
  unbalanced: { status: 422, title: 'Posting is not balanced' },
  insufficient_funds: { status: 422, title: 'Insufficient funds' },
  account_frozen: { status: 409, title: 'Account is frozen' },
  account_closed: { status: 409, title: 'Account is closed' },
  precondition_failed: { status: 412, title: 'Precondition no longer holds' },
  limit_exceeded: { status: 422, title: 'Limit exceeded' },
  period_closed: { status: 409, title: 'Period is closed' },
  post_exceeds_pending: { status: 422, title: 'Posting exceeds the pending reservation' },
  event_feed_blocked: { status: 403, title: 'Event feed blocked' },
  ledger_not_found: { status: 404, title: 'Ledger not found' },
  account_not_found: { status: 404, title: 'Account not found' },
  transaction_not_found: { status: 404, title: 'Transaction not found' },
  pending_not_found: { status: 404, title: 'Pending posting not found' },
  idempotency_key_not_found: { status: 404, title: 'Idempotency key not found' },

  // Platform-wide codes the spec leaves open (docs/decisions.md).
  idempotency_in_flight: { status: 409, title: 'A request with this idempotency key is in flight' },
  out_of_stock: { status: 409, title: 'Not enough stock' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** Codes a client may retry with the same request and expect a different outcome. */
export const retryableCodes: ReadonlySet<ErrorCode> = new Set([
  'idempotency_in_flight',
  'rate_limited',
  'bulkhead_full',
  'service_unavailable',
]);

export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    detail?: string,
    extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail ?? errorCatalogue[code].title);
    this.name = 'AppError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.errors = extra.errors;
    this.headers = extra.headers;
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  retryable?: true;
}

/** The problem+json body for any thrown value; unknown errors say nothing about themselves. */
export function problemBody(error: unknown, requestId: string): ProblemBody {
  const known = isAppError(error) ? error : new AppError('internal_error', 'An internal error occurred.');
  const entry = errorCatalogue[known.code];
  const body: ProblemBody = {
    type: problemType(known.code),
    title: entry.title,
    status: entry.status,
    detail: known.message,
    code: known.code,
    request_id: requestId,
  };
  if (known.errors?.length) body.errors = known.errors;
  if (retryableCodes.has(known.code)) body.retryable = true;
  return body;
}

export const problemType = (code: ErrorCode): string => `urn:wallet:problem:${code}`;
