import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/kernel/errors';
import { uuidv7 } from '../../shared/kernel/ids';
import { listAuditLog } from '../../shared/wallet/tenancy/audit';
import type { TenancyLedger } from '../../shared/wallet/deps';
import { getItem } from '../../shared/aws/store';
import { createUser, findUserByExternalId, getUser, getUserRecord, listUsers } from '../../shared/wallet/tenancy/users';
import { walletKeys } from '../../shared/wallet/keys';
import { tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { refusal } from '../support/services';

let f: TenancyFixture;

beforeAll(async () => {
  f = await tenancyFixture();
});
afterAll(() => f?.stop());

const cashAccounts = async (ledgerId: string) => (await f.ledger.rollup(ledgerId)).rows.find((r) => r.owner_type === 'user' && r.purpose === 'cash')?.accounts ?? 0;

describe('creating users', () => {
  it("opens the user's cash account in the tenant's ledger and commits the user, its external id and the audit record", async () => {
    const tenant = await f.tenant('Users', 'GBP');
    const { user, created } = await createUser(f.deps, tenant.id, { external_id: 'cust_42@shop:A-1.b', kind: 'business', metadata: { tier: 'gold' } }, f.context());
    expect(created).toBe(true);
    expect(user).toMatchObject({ external_id: 'cust_42@shop:A-1.b', kind: 'business', status: 'active', metadata: { tier: 'gold' } });
    expect(Object.keys(user).sort()).toEqual(['created_at', 'external_id', 'id', 'kind', 'metadata', 'status']);

    const record = await getUserRecord(f.deps, tenant.id, user.id);
    const account = await f.ledger.getAccount(tenant.ledger_id, record.cash_account_id);
    expect(account).toMatchObject({ owner_type: 'user', owner_id: user.id, purpose: 'cash', commodity: 'GBP', floor: 0 });
    expect(await getItem(f.deps, walletKeys.userExternal(tenant.id, 'cust_42@shop:A-1.b'))).toMatchObject({ user_id: user.id });
    expect((await findUserByExternalId(f.deps, tenant.id, 'cust_42@shop:A-1.b'))?.id).toBe(user.id);
    const audit = (await listAuditLog(f.deps, tenant.id, { limit: 10 })).data[0];
    expect(audit).toMatchObject({ action: 'user.create', target: { type: 'user', id: user.id }, actor: { type: 'api_key', id: f.operator.id }, after: user });
  });

  it('defaults the kind to consumer and the metadata to empty', async () => {
    const tenant = await f.tenant();
    const { user } = await createUser(f.deps, tenant.id, { external_id: 'plain' }, f.context());
    expect(user).toMatchObject({ kind: 'consumer', metadata: {} });
  });

  it('refuses a taken external_id with conflict naming the existing user, or returns it when asked', async () => {
    const tenant = await f.tenant();
    const { user } = await createUser(f.deps, tenant.id, { external_id: 'dup' }, f.context());
    const error = await refusal(createUser(f.deps, tenant.id, { external_id: 'dup' }, f.context()));
    expect(error.code).toBe('conflict');
    expect(error.message).toContain(user.id);
    expect(await createUser(f.deps, tenant.id, { external_id: 'dup' }, { ...f.context(), ifExists: 'return' })).toEqual({ user, created: false });
    expect(await cashAccounts(tenant.ledger_id)).toBe(1);
  });

  it('keeps external ids per tenant: the same one in two tenants makes two users', async () => {
    const [a, b] = [await f.tenant(), await f.tenant()];
    const [ua, ub] = [(await createUser(f.deps, a.id, { external_id: 'shared' }, f.context())).user, (await createUser(f.deps, b.id, { external_id: 'shared' }, f.context())).user];
    expect(ua.id).not.toBe(ub.id);
  });

  it('resumes a creation that failed after opening the account, with the same id and one account', async () => {
    const tenant = await f.tenant();
    let failures = 1;
    const flaky: TenancyLedger = {
      createLedger: (input, key) => f.ledger.createLedger(input, key),
      openAccount: async (ledgerId, input, key) => {
        const account = await f.ledger.openAccount(ledgerId, input, key);
        if (failures-- > 0) throw new AppError('service_unavailable', 'the answer was lost');
        return account;
      },
      listTransactions: (ledgerId, query) => f.ledger.listTransactions(ledgerId, query),
      rollup: (ledgerId) => f.ledger.rollup(ledgerId),
    };
    expect((await refusal(createUser(f.withLedger(flaky), tenant.id, { external_id: 'flaky' }, f.context()))).code).toBe('service_unavailable');
    const pending = await getItem(f.deps, walletKeys.userExternal(tenant.id, 'flaky'));
    expect(pending?.user_id).toBeUndefined();
    expect(await findUserByExternalId(f.deps, tenant.id, 'flaky')).toBeUndefined();

    const { user } = await createUser(f.withLedger(flaky), tenant.id, { external_id: 'flaky' }, f.context());
    expect(user.id).toBe(pending?.pending_user_id);
    expect(await cashAccounts(tenant.ledger_id)).toBe(1);
  });

  it('lets exactly one of two concurrent creations of one external id win', async () => {
    const tenant = await f.tenant();
    const results = await Promise.allSettled([1, 2, 3].map(() => createUser(f.deps, tenant.id, { external_id: 'race' }, f.context())));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('conflict');
    expect(await cashAccounts(tenant.ledger_id)).toBe(1);
    expect((await listUsers(f.deps, tenant.id, { limit: 10 })).data).toHaveLength(1);
  });

  it('refuses a malformed external id or kind with invalid_request and an unknown tenant with tenant_not_found', async () => {
    const tenant = await f.tenant();
    for (const external_id of ['', 'has space', 'x'.repeat(201), 'slash/not', 'ünï']) {
      expect((await refusal(createUser(f.deps, tenant.id, { external_id }, f.context()))).code).toBe('invalid_request');
    }
    expect((await refusal(createUser(f.deps, tenant.id, { external_id: 'k', kind: 'robot' as never }, f.context()))).code).toBe('invalid_request');
    expect((await refusal(createUser(f.deps, uuidv7(), { external_id: 'k' }, f.context()))).code).toBe('tenant_not_found');
  });
});

describe('reading users', () => {
  it("answers another tenant's user, or another user for a user token, with user_not_found", async () => {
    const [a, b] = [await f.tenant(), await f.tenant()];
    const [mine, other] = [await f.user(a.id), await f.user(a.id)];
    const theirs = await f.user(b.id);
    expect((await getUser(f.deps, a.id, mine.id)).id).toBe(mine.id);
    expect((await refusal(getUser(f.deps, a.id, theirs.id))).code).toBe('user_not_found');
    expect((await refusal(getUser(f.deps, a.id, uuidv7()))).code).toBe('user_not_found');
    expect((await getUser(f.deps, a.id, mine.id, { selfOnly: mine.id })).id).toBe(mine.id);
    expect((await refusal(getUser(f.deps, a.id, other.id, { selfOnly: mine.id }))).code).toBe('user_not_found');
  });

  it("lists the tenant's users newest first, page by page; a user token's listing holds only itself", async () => {
    const tenant = await f.tenant();
    const users = [await f.user(tenant.id), await f.user(tenant.id), await f.user(tenant.id)];
    await f.user((await f.tenant()).id);
    const first = await listUsers(f.deps, tenant.id, { limit: 2 });
    expect(first.data.map((u) => u.id)).toEqual([users[2]!.id, users[1]!.id]);
    const second = await listUsers(f.deps, tenant.id, { limit: 2, cursor: first.next_cursor! });
    expect(second.data.map((u) => u.id)).toEqual([users[0]!.id]);
    expect((await listUsers(f.deps, tenant.id, { limit: 50, selfOnly: users[1]!.id })).data.map((u) => u.id)).toEqual([users[1]!.id]);
    const elsewhere = await f.tenant();
    expect((await refusal(listUsers(f.deps, elsewhere.id, { limit: 2, cursor: first.next_cursor! }))).code).toBe('invalid_request');
  });

  it('finds one user by external_id in its own tenant only; a user token finds only itself', async () => {
    const tenant = await f.tenant();
    const [alice, bob] = [await f.user(tenant.id), await f.user(tenant.id)];
    const other = await f.tenant();
    const find = (tenantId: string, externalId: string, selfOnly?: string) => listUsers(f.deps, tenantId, { limit: 10, externalId, selfOnly }).then((page) => page.data.map((u) => u.id));
    expect(await find(tenant.id, alice!.external_id)).toEqual([alice!.id]);
    expect(await find(tenant.id, 'nobody')).toEqual([]);
    expect(await find(other.id, alice!.external_id)).toEqual([]);
    expect(await find(tenant.id, bob!.external_id, alice!.id)).toEqual([]);
    expect(await find(tenant.id, alice!.external_id, alice!.id)).toEqual([alice!.id]);
  });
});
