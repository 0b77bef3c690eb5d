import { describe, expect, it } from 'vitest';
import { AppError, errorCatalogue, problemBody } from '../../shared/kernel/errors';

// Spec part 7, verbatim: the codes clients branch on and their statuses.
const specCodes: Record<string, number> = {
  unauthenticated: 401, insufficient_scope: 403, scope_exceeds_key: 403, forbidden: 403, not_client_member: 403,
  platform_scope_only: 403, global_read_only: 403, partner_admin_required: 403, consumer_token_required: 403,
  invalid_request: 400, client_not_found: 404, offering_not_found: 404, not_found: 404, user_not_found: 404,
  tenant_not_found: 404, idempotency_key_reuse: 409, conflict: 409, invalid_transition: 409, rule_exists: 409,
  support_access_already_active: 409, not_a_plan: 422, user_not_business: 422, credit_limit_below_balance: 422,
  rate_limited: 429, bulkhead_full: 503,
};
const ledgerCodes = ['unbalanced', 'invalid', 'insufficient_funds', 'account_frozen', 'account_closed', 'precondition_failed',
  'limit_exceeded', 'period_closed', 'post_exceeds_pending', 'conflict', 'event_feed_blocked'];

describe('the error catalogue', () => {
  it('carries every code of the spec with its status', () => {
    for (const [code, status] of Object.entries(specCodes)) {
      expect(errorCatalogue[code as keyof typeof errorCatalogue]?.status, code).toBe(status);
    }
  });

  it('carries every ledger code with one documented status', () => {
    for (const code of ledgerCodes) expect(code in errorCatalogue, code).toBe(true);
  });

  it('writes a problem body with type, title, status, detail, code and request id', () => {
    const body = problemBody(new AppError('insufficient_funds', 'Account 1 would go below its floor.'), 'req-1');
    expect(body).toEqual({
      type: 'urn:wallet:problem:insufficient_funds',
      title: 'Insufficient funds',
      status: 422,
      detail: 'Account 1 would go below its floor.',
      code: 'insufficient_funds',
      request_id: 'req-1',
    });
  });

  it('turns an unknown error into internal_error without its message', () => {
    const body = problemBody(new Error('connect ECONNREFUSED 10.0.0.7:443'), 'req-2');
    expect(body.code).toBe('internal_error');
    expect(body.status).toBe(500);
    expect(JSON.stringify(body)).not.toContain('ECONNREFUSED');
  });

  it('marks retryable codes so clients can back off and retry', () => {
    expect(problemBody(new AppError('idempotency_in_flight'), 'r').retryable).toBe(true);
    expect(problemBody(new AppError('conflict'), 'r').retryable).toBeUndefined();
  });
});
