import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { apiKeyFor, staffAccount, staffToken, TEST_STAFF_PASSWORD } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { settleQueues, startTestPlatform } from '../support/platform';
import { pause } from '../support/time';
import { createTenant } from '../support/tenants';

/**
 * The access log read back: platform staff list the cross-tenant reads and the requests made
 * under support grants (GET /v1/platform/access_log), filtered by tenant, actor, grant and time;
 * a partner administrator lists the requests made under one of the tenant's grants (console
 * GET /v1/support_access_grants/{grantId}/requests). A request queues its record before it is
 * answered and the access-records worker writes it a moment later (shared/wallet/access-records.ts),
 * later still on a busy machine: so the log is read once that queue is empty (`settleQueues`),
 * never within a fixed time after the requests (issue 30: 10 s of polling ran out beside another
 * suite).
 */

let platform: Platform;
const api = apiClient(() => platform.urls.public);
const consoleApi = apiClient(() => platform.urls.console);
let platformStaff: string;
let platformStaffId: string;
let tenantA: string;
let tenantB: string;
let adminA: string;
let adminB: string;
let engineer: { id: string; email: string };
let grantId: string;
let engineerToken: string;
/** Times between the phases: before the engineer's requests, and before the platform's reads. */
let beforeSupport: string;
let beforeReads: string;


beforeAll(async () => {
  platform = await startTestPlatform();
  const operator = await staffAccount(platform, { role: 'platform' });
  platformStaffId = operator.id;
  platformStaff = (await api('POST', '/v1/auth/staff_sessions', { body: { email: operator.email, password: operator.password } })).body.token;
  const tenant = (name: string) => createTenant(api, platformStaff, name);
  [tenantA, tenantB] = [await tenant('Logged A'), await tenant('Logged B')];
  [adminA, adminB] = [await staffToken(platform, { role: 'partner_admin', tenantId: tenantA }), await staffToken(platform, { role: 'partner_admin', tenantId: tenantB })];
  engineer = await staffAccount(platform, { role: 'vendor_support' });
  const keyA = await apiKeyFor(platform, tenantA, [...TENANT_SCOPES]);
  expect((await api('POST', '/v1/users', { token: keyA, body: { external_id: 'logged-user' } })).status).toBe(201);

  const granted = await consoleApi('POST', '/v1/support_access_grants', {
    token: adminA,
    body: { staff_id: engineer.id, reason: 'a missing top-up', ticket_reference: 'SUP-7', expires_at: new Date(Date.now() + 3600_000).toISOString() },
  });
  expect(granted.status, granted.text).toBe(201);
  grantId = granted.body.id;
  const session = await api('POST', '/v1/auth/staff_sessions', { body: { email: engineer.email, password: TEST_STAFF_PASSWORD, tenant_id: tenantA } });
  expect(session.status, session.text).toBe(201);
  engineerToken = session.body.token;

  await pause(5);
  beforeSupport = new Date().toISOString();
  await pause(5);
  expect((await api('GET', '/v1/users', { token: engineerToken })).status).toBe(200);
  expect((await api('GET', '/v1/fee_plan', { token: engineerToken })).status).toBe(403); // refused, and recorded
  await pause(5);
  beforeReads = new Date().toISOString();
  await pause(5);
  expect((await api('GET', `/v1/platform/users?tenant_id=${tenantA}`, { token: platformStaff })).status).toBe(200);
  expect((await api('GET', `/v1/platform/users?tenant_id=${tenantB}`, { token: platformStaff })).status).toBe(200);
  expect((await api('GET', '/v1/platform/users', { token: platformStaff })).status).toBe(200);
  // Every record those requests queued is written, none buried in the dead-letter list.
  await settleQueues(platform);
  expect(platform.queues.deadLetters('accessRecords')).toEqual([]);
  // No cap of its own: a platform start and the requests above one after another, nothing waited
  // for but the records they queued, is bounded work; vitest.config.ts's hookTimeout is the cap for
  // a hang (this hook's former 120 s ran out beside another suite on a busy 2-core machine).
});

afterAll(() => platform?.stop());

type Entry = { id: string; kind: string; actor: { type: string; id: string }; tenant_id: string | null; grant_id: string | null; operation: string; outcome: string; filters: Record<string, unknown> | null };

/** Every entry of a listing, page by page (`limit` per page). */
async function everyEntry(query: string, limit = 3): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages += 1) {
    const page = await api('GET', `/v1/platform/access_log?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: platformStaff });
    expect(page.status, page.text).toBe(200);
    entries.push(...page.body.data);
    cursor = page.body.next_cursor;
    if (!cursor) return entries;
  }
  throw new Error('the listing did not end');
}

const ofGrant = (entries: Entry[]) => entries.filter((entry) => entry.grant_id === grantId);
const reads = (entries: Entry[], operation = 'listPlatformUsers') => entries.filter((entry) => entry.kind === 'cross_tenant_read' && entry.operation === operation);

describe('GET /v1/platform/access_log', () => {
  it('lists cross-tenant reads and requests under support grants together, newest first, in pages', async () => {
    const entries = await everyEntry('');
    const ids = entries.map((entry) => entry.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ofGrant(entries).map(({ kind, actor, tenant_id, operation, outcome }) => ({ kind, actor, tenant_id, operation, outcome }))).toEqual([
      { kind: 'support_access', actor: { type: 'vendor_support', id: engineer.id }, tenant_id: tenantA, operation: 'getFeePlan', outcome: 'admitted' },
      { kind: 'support_access', actor: { type: 'vendor_support', id: engineer.id }, tenant_id: tenantA, operation: 'listUsers', outcome: 'admitted' },
    ]);
    expect(reads(entries).map(({ actor, tenant_id, filters }) => ({ actor, tenant_id, filters: filters?.tenant_id ?? null }))).toEqual([
      { actor: { type: 'platform_staff', id: platformStaffId }, tenant_id: null, filters: null },
      { actor: { type: 'platform_staff', id: platformStaffId }, tenant_id: tenantB, filters: tenantB },
      { actor: { type: 'platform_staff', id: platformStaffId }, tenant_id: tenantA, filters: tenantA },
    ]);
    // Reading the log is a logged read too (recorded as the others are, once its queue is empty).
    await settleQueues(platform);
    expect((await everyEntry('', 100)).some((entry) => entry.operation === 'listAccessLog')).toBe(true);
  });

  it("filters by tenant (its entries and reads across every tenant), actor, grant and time", async () => {
    const ofA = await everyEntry(`&tenant_id=${tenantA}`);
    expect(ofA.every((entry) => entry.tenant_id === tenantA || entry.tenant_id === null)).toBe(true);
    expect(ofGrant(ofA)).toHaveLength(2);
    expect(reads(ofA).map((entry) => entry.tenant_id)).toEqual([null, tenantA]);

    const byEngineer = await everyEntry(`&actor_id=${engineer.id}`);
    expect(byEngineer.map((entry) => [entry.kind, entry.operation])).toEqual([['support_access', 'getFeePlan'], ['support_access', 'listUsers']]);
    const byStaffInB = await everyEntry(`&actor_id=${platformStaffId}&tenant_id=${tenantB}`);
    expect(reads(byStaffInB).map((entry) => entry.tenant_id)).toEqual([null, tenantB]);

    const byGrant = await everyEntry(`&grant_id=${grantId}`);
    expect(byGrant.map((entry) => entry.operation)).toEqual(['getFeePlan', 'listUsers']);
    expect(await everyEntry(`&grant_id=${grantId}&tenant_id=${tenantB}`)).toEqual([]);

    const support = await everyEntry(`&since=${beforeSupport}&until=${beforeReads}`);
    expect(support.map((entry) => entry.operation)).toEqual(['getFeePlan', 'listUsers']);
    const before = await everyEntry(`&until=${beforeSupport}`);
    expect(before.filter((entry) => entry.grant_id === grantId || entry.operation === 'listPlatformUsers')).toEqual([]);
    const readsOnly = await everyEntry(`&since=${beforeReads}&actor_id=${platformStaffId}`);
    expect(readsOnly.every((entry) => entry.kind === 'cross_tenant_read')).toBe(true);
    expect(reads(readsOnly)).toHaveLength(3);
  });

  it('refuses since after until, a foreign cursor, and anyone but platform staff holding platform:read', async () => {
    expectProblem(await api('GET', `/v1/platform/access_log?since=${beforeReads}&until=${beforeSupport}`, { token: platformStaff }), 'invalid_request');
    const tenantPage = await api('GET', `/v1/platform/access_log?limit=1&tenant_id=${tenantA}`, { token: platformStaff });
    expect(tenantPage.body.next_cursor).toEqual(expect.any(String));
    expectProblem(await api('GET', `/v1/platform/access_log?limit=1&cursor=${tenantPage.body.next_cursor}`, { token: platformStaff }), 'invalid_request');
    expectProblem(await api('GET', '/v1/platform/access_log?cursor=bm90LWEtY3Vyc29y', { token: platformStaff }), 'invalid_request');
    const noRead = await staffToken(platform, { role: 'platform', scopes: ['platform:manage'] });
    expectProblem(await api('GET', '/v1/platform/access_log', { token: noRead }), 'global_read_only');
    expectProblem(await api('GET', '/v1/platform/access_log', { token: await apiKeyFor(platform, tenantA, [...TENANT_SCOPES]) }), 'global_read_only');
    expectProblem(await api('GET', '/v1/platform/access_log', { token: engineerToken }), 'global_read_only');
  });
});

describe('GET /v1/support_access_grants/{grantId}/requests (console)', () => {
  const requestsOf = (token: string, query = '') => consoleApi('GET', `/v1/support_access_grants/${grantId}/requests${query}`, { token });

  it("lists the engineer's requests under the grant newest first, refused ones and those after its end included", async () => {
    // The tests above may have sent the engineer to the platform's log as well (refused, and recorded).
    await settleQueues(platform);
    const listed = await requestsOf(adminA);
    expect(listed.status, listed.text).toBe(200);
    const ours = listed.body.data.filter((request: { operation: string }) => request.operation !== 'listAccessLog');
    expect(ours.map(({ grant_id, staff_id, operation, outcome }: Record<string, string>) => ({ grant_id, staff_id, operation, outcome }))).toEqual([
      { grant_id: grantId, staff_id: engineer.id, operation: 'getFeePlan', outcome: 'admitted' },
      { grant_id: grantId, staff_id: engineer.id, operation: 'listUsers', outcome: 'admitted' },
    ]);
    // Page by page, the same requests: every one recorded before the listing (the queue was empty),
    // and none made since.
    const paged: unknown[] = [];
    let page = await requestsOf(adminA, '?limit=1');
    for (;;) {
      paged.push(...page.body.data);
      if (!page.body.next_cursor) break;
      page = await requestsOf(adminA, `?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    }
    expect(paged).toEqual(listed.body.data);

    expect((await consoleApi('POST', `/v1/support_access_grants/${grantId}/revoke`, { token: adminA })).status).toBe(200);
    expect((await api('GET', '/v1/users', { token: engineerToken })).status).toBe(401);
    await settleQueues(platform);
    const after = await requestsOf(adminA);
    expect(after.body.data[0]).toMatchObject({ operation: 'listUsers', outcome: 'grant_ended' });
    expect(after.body.data.slice(1)).toEqual(listed.body.data);
  });

  it("answers 404 for another tenant's grant and an unknown one, and partner_admin_required to others", async () => {
    expectProblem(await requestsOf(adminB), 'not_found');
    expectProblem(await consoleApi('GET', `/v1/support_access_grants/${uuidv7()}/requests`, { token: adminA }), 'not_found');
    expectProblem(await requestsOf(platformStaff), 'partner_admin_required');
  });
});
