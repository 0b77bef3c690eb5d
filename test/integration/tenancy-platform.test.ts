import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../shared/kernel/ids';
import { listAccessLog } from '../../shared/wallet/tenancy/access-log';
import { listPlatformTransactions, listPlatformUsers, type CrossTenantTransaction } from '../../shared/wallet/tenancy/platform';
import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { settleQueues } from '../support/platform';
import { tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { refusal } from '../support/services';
import { idsOf } from '../support/http';
import type { TenantRecord, UserRecord } from '../../shared/wallet/tenancy/records';

let f: TenancyFixture;
let tenants: TenantRecord[];
/** Every posted transaction id, newest first, with its tenant and type. */
let posted: { id: string; tenant_id: string; type: string }[];

async function postTransaction(tenant: TenantRecord, user: UserRecord, type: string, amount: number) {
  const transaction = await f.ledger.post(
    tenant.ledger_id,
    { type, legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount, commodity: tenant.currency }, { account_id: user.cash_account_id, direction: 'credit', amount, commodity: tenant.currency }], metadata: { n: String(amount) } },
    uuidv7(),
  );
  posted.unshift({ id: transaction.id, tenant_id: tenant.id, type });
}

beforeAll(async () => {
  f = await tenancyFixture();
  tenants = [await f.tenant('Alpha'), await f.tenant('Beta', 'EUR'), await f.tenant('Gamma')];
  const users: UserRecord[] = [];
  for (const tenant of tenants) users.push(await f.user(tenant.id, `platform-user-${tenant.name.toLowerCase()}`));
  posted = [];
  // Interleaved across tenants, so a page must merge them.
  for (let i = 1; i <= 12; i += 1) {
    const t = [0, 1, 2, 1, 0, 2, 2, 1, 0, 0, 1, 2][i - 1]!;
    await postTransaction(tenants[t]!, users[t]!, i % 3 === 0 ? 'payout' : 'topup', i);
  }
  posted.sort((a, b) => (a.id < b.id ? 1 : -1));
});
afterAll(() => f?.stop());


async function readAll(query: { tenant_id?: string; type?: string; limit: number }) {
  const all: CrossTenantTransaction[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages += 1) {
    const page = await listPlatformTransactions(f.deps, { ...query, cursor }, f.context(f.staff));
    expect(page.data.length).toBeLessThanOrEqual(query.limit);
    all.push(...page.data);
    if (!page.next_cursor) return all;
    expect(page.next_cursor).toBe(page.data[page.data.length - 1]!.id);
    cursor = page.next_cursor;
  }
  throw new Error('no end');
}

describe('cross-tenant transactions', () => {
  it('merges every tenant newest first with tenant names and legs without account ids', async () => {
    const page = await listPlatformTransactions(f.deps, { limit: 5 }, f.context(f.staff));
    expect(idsOf(page.data)).toEqual(posted.slice(0, 5).map((p) => p.id));
    const newest = page.data[0]!;
    const tenant = tenants.find((t) => t.id === newest.tenant_id)!;
    expect(newest).toMatchObject({ tenant_name: tenant.name, type: posted[0]!.type, status: 'posted', metadata: { n: '12' } });
    expect(newest.legs).toEqual([
      { owner_type: 'tenant', owner_id: tenant.id, purpose: 'funding', direction: 'debit', amount: 12, commodity: tenant.currency },
      expect.objectContaining({ owner_type: 'user', purpose: 'cash', direction: 'credit', amount: 12 }),
    ]);
  });

  it('pages through everything once, in order, for any page size', async () => {
    for (const limit of [1, 4, 5, 12, 100]) {
      expect(idsOf(await readAll({ limit })), `limit ${limit}`).toEqual(posted.map((p) => p.id));
    }
  });

  it('filters by tenant and by type', async () => {
    const beta = tenants[1]!;
    expect(idsOf(await readAll({ tenant_id: beta.id, limit: 2 }))).toEqual(posted.filter((p) => p.tenant_id === beta.id).map((p) => p.id));
    expect(idsOf(await readAll({ type: 'payout', limit: 3 }))).toEqual(posted.filter((p) => p.type === 'payout').map((p) => p.id));
    expect(idsOf(await readAll({ tenant_id: beta.id, type: 'payout', limit: 50 }))).toEqual(posted.filter((p) => p.tenant_id === beta.id && p.type === 'payout').map((p) => p.id));
    expect(await listPlatformTransactions(f.deps, { tenant_id: uuidv7(), limit: 50 }, f.context(f.staff))).toEqual({ data: [], next_cursor: null });
  });

  it('continues after any id of the listing, not only a page end', async () => {
    const middle = posted[6]!.id;
    const page = await listPlatformTransactions(f.deps, { cursor: middle, limit: 3 }, f.context(f.staff));
    expect(idsOf(page.data)).toEqual(posted.slice(7, 10).map((p) => p.id));
    const last = posted[posted.length - 1]!.id;
    expect(await listPlatformTransactions(f.deps, { cursor: last, limit: 3 }, f.context(f.staff))).toEqual({ data: [], next_cursor: null });
  });

  it('resumes from where the previous page left each ledger: one ledger page per tenant', async () => {
    let calls = 0;
    const counted = f.withLedger({
      createLedger: (input, key) => f.ledger.createLedger(input, key),
      openAccount: (ledgerId, input, key) => f.ledger.openAccount(ledgerId, input, key),
      listTransactions: (ledgerId, query) => {
        calls += 1;
        return f.ledger.listTransactions(ledgerId, query);
      },
      rollup: (ledgerId) => f.ledger.rollup(ledgerId),
    });
    const first = await listPlatformTransactions(counted, { limit: 4 }, f.context(f.staff));
    // The resume point is queued with the page and written by the access-records worker.
    await settleQueues(f.platform);
    calls = 0;
    const second = await listPlatformTransactions(counted, { cursor: first.next_cursor!, limit: 4 }, f.context(f.staff));
    expect(idsOf(second.data)).toEqual(posted.slice(4, 8).map((p) => p.id));
    expect(calls).toBeLessThanOrEqual(tenants.length + 1);
  });

  it('refuses a cursor that is not a transaction of this listing with invalid_request', async () => {
    const beta = tenants[1]!;
    const notBeta = posted.find((p) => p.tenant_id !== beta.id)!.id;
    const topup = posted.find((p) => p.type === 'topup')!.id;
    for (const query of [{ cursor: uuidv7() }, { cursor: notBeta, tenant_id: beta.id }, { cursor: topup, type: 'payout' }]) {
      const error = await refusal(listPlatformTransactions(f.deps, { ...query, limit: 5 }, f.context(f.staff)));
      expect(error.code, JSON.stringify(query)).toBe('invalid_request');
      expect(error.errors).toEqual([{ field: 'query.cursor', message: 'unknown cursor' }]);
    }
  });

  it('clamps limit to 1..100 with a default of 50 and refuses a cursor that is no uuid', () => {
    const query = tenancyRoutes.listPlatformTransactions.request.query!;
    expect(query.parse({}).limit).toBe(50);
    expect(query.parse({ limit: '0' }).limit).toBe(1);
    expect(query.parse({ limit: '-7' }).limit).toBe(1);
    expect(query.parse({ limit: '1000' }).limit).toBe(100);
    expect(query.parse({ limit: '37' }).limit).toBe(37);
    expect(query.safeParse({ limit: 'ten' }).success).toBe(false);
    expect(query.safeParse({ cursor: 'abc' }).success).toBe(false);
    expect(query.safeParse({ tenant_id: 'abc' }).success).toBe(false);
  });

  it('logs every read in the cross-tenant access log with who, filters and count', async () => {
    const requestId = uuidv7();
    const beta = tenants[1]!;
    const page = await listPlatformTransactions(f.deps, { tenant_id: beta.id, type: 'topup', limit: 2 }, { actor: f.staff, requestId });
    await settleQueues(f.platform);
    const log = await listAccessLog(f.deps, { limit: 100 });
    expect(log.data.find((e) => e.request_id === requestId)).toMatchObject({
      actor: { type: 'platform_staff', id: f.staff.id },
      operation: 'listPlatformTransactions',
      filters: { tenant_id: beta.id, type: 'topup', cursor: null, limit: 2 },
      count: page.data.length,
    });
  });
});

describe('cross-tenant users', () => {
  it('lists users of every tenant newest first, of one tenant, and matching q case-insensitively, and logs each read', async () => {
    const all = await listPlatformUsers(f.deps, { limit: 100 }, f.context(f.staff));
    const ours = all.data.filter((u) => u.external_id.startsWith('platform-user-'));
    expect(ours.map((u) => u.tenant_name)).toEqual(['Gamma', 'Beta', 'Alpha']);
    const ids = all.data.map((u) => u.id);
    expect(ids).toEqual([...ids].sort().reverse());

    const beta = await listPlatformUsers(f.deps, { tenant_id: tenants[1]!.id, limit: 100 }, f.context(f.staff));
    expect(beta.data.map((u) => u.external_id)).toEqual(['platform-user-beta']);
    expect(beta.data[0]).toMatchObject({ tenant_id: tenants[1]!.id, tenant_name: 'Beta', kind: 'consumer' });

    const requestId = uuidv7();
    const found = await listPlatformUsers(f.deps, { q: 'USER-GAM', limit: 10 }, { actor: f.staff, requestId });
    expect(found.data.map((u) => u.external_id)).toEqual(['platform-user-gamma']);
    await settleQueues(f.platform);
    const log = await listAccessLog(f.deps, { limit: 100 });
    expect(log.data.find((e) => e.request_id === requestId)).toMatchObject({ operation: 'listPlatformUsers', filters: { q: 'USER-GAM', tenant_id: null }, count: 1 });
  });

  it('pages a filtered search with a cursor and refuses a cursor of another listing', async () => {
    const first = await listPlatformUsers(f.deps, { q: 'platform-user', limit: 2 }, f.context(f.staff));
    expect(first.data).toHaveLength(2);
    const second = await listPlatformUsers(f.deps, { q: 'platform-user', limit: 2, cursor: first.next_cursor! }, f.context(f.staff));
    expect(second.data.map((u) => u.external_id)).toEqual(['platform-user-alpha']);
    expect((await refusal(listPlatformUsers(f.deps, { tenant_id: tenants[0]!.id, limit: 2, cursor: first.next_cursor! }, f.context(f.staff)))).code).toBe('invalid_request');
  });
});
