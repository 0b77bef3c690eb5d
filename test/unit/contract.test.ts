import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../shared/routes';
import { contractViolations, forgetContract, registerContract } from '../support/contract';

/** The check every API test's responses go through (test/support/contract.ts) refuses what the document does not say. */

const base = 'http://contract.test';
beforeAll(() => registerContract(base, routes, 'public'));
afterAll(() => forgetContract(base));

const problem = (code: string, status: number) => ({ type: `urn:wallet:problem:${code}`, title: 'T', status, detail: 'd', code, request_id: 'r' });

describe('the response contract check', () => {
  it('passes a documented answer', async () => {
    expect(await contractViolations(base, 'GET', '/healthz', 200, 'application/json', { status: 'ok' })).toEqual([]);
    expect(await contractViolations(base, 'GET', '/v1/users?limit=2', 401, 'application/problem+json', problem('unauthenticated', 401))).toEqual([]);
    expect(await contractViolations(base, 'GET', '/v1/nothing-here', 404, 'application/problem+json', problem('not_found', 404))).toEqual([]);
  });

  it('refuses a body the schema does not allow', async () => {
    expect(await contractViolations(base, 'GET', '/healthz', 200, 'application/json', { status: 'okay' })).not.toEqual([]);
    expect(await contractViolations(base, 'GET', '/v1/users', 401, 'application/problem+json', { code: 'unauthenticated' })).not.toEqual([]);
  });

  it('refuses an undocumented success status and a content type the document does not name', async () => {
    expect(await contractViolations(base, 'GET', '/healthz', 202, 'application/json', { status: 'ok' })).not.toEqual([]);
    expect(await contractViolations(base, 'GET', '/healthz', 200, 'text/plain', 'ok')).not.toEqual([]);
    expect(await contractViolations(base, 'GET', '/v1/nothing-here', 200, 'application/json', {})).not.toEqual([]);
  });

  it('refuses an error status the operation does not document: there is no default response to cover it', async () => {
    // A health probe takes no credential: a 401 from it is a status its document never promised.
    const violations = await contractViolations(base, 'GET', '/healthz', 401, 'application/problem+json', problem('unauthenticated', 401));

    expect(violations).toEqual([expect.stringContaining('walletHealthz answered 401: the operation does not document this status')]);
  });

  it('refuses a problem code the document does not list at that status', async () => {
    const violations = await contractViolations(base, 'GET', '/v1/users/0190f0b5-3a3e-7000-8000-000000000001', 404, 'application/problem+json', problem('not_found', 404));

    expect(violations).toEqual([expect.stringContaining('getUser answered 404 with code not_found: the document lists only user_not_found')]);
  });

  it('accepts only the fallback codes on a path no operation serves', async () => {
    expect(await contractViolations(base, 'DELETE', '/healthz', 405, 'application/problem+json', problem('method_not_allowed', 405))).toEqual([]);
    expect(await contractViolations(base, 'GET', '/v1/nothing-here', 404, 'application/problem+json', problem('user_not_found', 404))).not.toEqual([]);
    expect(await contractViolations(base, 'GET', '/v1/nothing-here', 500, 'application/problem+json', problem('internal_error', 500))).not.toEqual([]);
  });
});
