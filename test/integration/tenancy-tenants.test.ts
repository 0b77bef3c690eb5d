import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/kernel/errors';
import { uuidv7 } from '../../shared/kernel/ids';
import { listAccessLog } from '../../shared/wallet/tenancy/access-log';
import { listAuditLog } from '../../shared/wallet/tenancy/audit';
import { CURRENCY_MINOR_UNITS, isActiveCurrency, minorUnitsOf } from '../../shared/wallet/tenancy/currencies';
import type { TenancyLedger } from '../../shared/wallet/deps';
import { FEE_PATHS } from '../../shared/wallet/tenancy/fees';
import { createTenant, getTenantRecord, listTenants, tenantHealth } from '../../shared/wallet/tenancy/tenants';
import { settleQueues } from '../support/platform';
import { tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { refusal } from '../support/services';

let f: TenancyFixture;

beforeAll(async () => {
  f = await tenancyFixture();
});
afterAll(() => f?.stop());

const request = (idempotencyKey?: string) => ({ requestId: uuidv7(), ...(idempotencyKey ? { idempotencyKey } : {}) });

describe('tenant provisioning', () => {
  it('creates the ledger, the revenue and funding accounts, the tenant row and its audit record', async () => {
    const { tenant, replayed } = await createTenant(f.deps, f.staff, { name: '  Acme Wallets  ', currency: 'EUR' }, request(uuidv7()));
    expect(replayed).toBe(false);
    expect(tenant).toMatchObject({ name: 'Acme Wallets', currency: 'EUR', status: 'active', commission_mode: 'deduct' });
    expect(Object.keys(tenant.fees).sort()).toEqual([...FEE_PATHS].sort());
    for (const path of FEE_PATHS) expect(tenant.fees[path]).toStrictEqual({ bps: 0, flat: 0, min_fee: 0 });

    const record = await getTenantRecord(f.deps, tenant.id);
    const rollup = await f.ledger.rollup(record.ledger_id);
    expect(rollup.rows.map((r) => [r.owner_type, r.purpose, r.commodity, r.accounts])).toEqual([
      ['tenant', 'funding', 'EUR', 1],
      ['tenant', 'revenue', 'EUR', 1],
    ]);
    expect(rollup.balanced).toBe(true);
    expect(await f.ledgersOfTenant(tenant.id)).toEqual([record.ledger_id]);

    const audit = await listAuditLog(f.deps, tenant.id, { limit: 10 });
    expect(audit.data).toHaveLength(1);
    expect(audit.data[0]).toMatchObject({ action: 'tenant.create', actor: { type: 'platform_staff', id: f.staff.id }, target: { type: 'tenant', id: tenant.id }, before: null });
    expect(audit.data[0]!.after).toMatchObject({ id: tenant.id, name: 'Acme Wallets', ledger_id: record.ledger_id });
  });

  it('answers a retry with the same Idempotency-Key with the same tenant and one ledger', async () => {
    const key = uuidv7();
    const first = await createTenant(f.deps, f.staff, { name: 'Retry Co', currency: 'USD' }, request(key));
    const second = await createTenant(f.deps, f.staff, { name: 'Retry Co', currency: 'USD' }, request(key));
    expect(second).toEqual({ tenant: first.tenant, replayed: true });
    expect(await f.ledgersOfTenant(first.tenant.id)).toHaveLength(1);
  });

  it('resumes a provisioning that failed after its ledger was created, without a second ledger', async () => {
    let failures = 1;
    const flaky: TenancyLedger = {
      createLedger: (input, key) => f.ledger.createLedger(input, key),
      openAccount: async (ledgerId, input, key) => {
        if (failures-- > 0) throw new AppError('service_unavailable', 'the ledger went away');
        return f.ledger.openAccount(ledgerId, input, key);
      },
      listTransactions: (ledgerId, query) => f.ledger.listTransactions(ledgerId, query),
      rollup: (ledgerId) => f.ledger.rollup(ledgerId),
    };
    const key = uuidv7();
    expect((await refusal(createTenant(f.withLedger(flaky), f.staff, { name: 'Flaky', currency: 'USD' }, request(key)))).code).toBe('service_unavailable');
    const { tenant, replayed } = await createTenant(f.withLedger(flaky), f.staff, { name: 'Flaky', currency: 'USD' }, request(key));
    expect(replayed).toBe(false);
    const ledgers = await f.ledgersOfTenant(tenant.id);
    expect(ledgers).toEqual([(await getTenantRecord(f.deps, tenant.id)).ledger_id]);
    const rollup = await f.ledger.rollup(ledgers[0]!);
    expect(rollup.rows.reduce((n, r) => n + r.accounts, 0)).toBe(2);
  });

  it('gives two concurrent requests with one key the same tenant', async () => {
    const key = uuidv7();
    const [a, b] = await Promise.all([
      createTenant(f.deps, f.staff, { name: 'Twins', currency: 'USD' }, request(key)),
      createTenant(f.deps, f.staff, { name: 'Twins', currency: 'USD' }, request(key)),
    ]);
    expect(a.tenant).toEqual(b.tenant);
    expect(await f.ledgersOfTenant(a.tenant.id)).toHaveLength(1);
    expect((await listAuditLog(f.deps, a.tenant.id, { limit: 10 })).data).toHaveLength(1);
  });

  it('refuses the same key for another name with idempotency_key_reuse; another caller may use the same key', async () => {
    const key = uuidv7();
    await createTenant(f.deps, f.staff, { name: 'First', currency: 'USD' }, request(key));
    expect((await refusal(createTenant(f.deps, f.staff, { name: 'Second', currency: 'USD' }, request(key)))).code).toBe('idempotency_key_reuse');
    const other = await createTenant(f.deps, { kind: 'platform_staff', id: 'someone-else' }, { name: 'Second', currency: 'USD' }, request(key));
    expect(other.replayed).toBe(false);
  });

  it('provisions a new tenant on each call without a key', async () => {
    const a = await createTenant(f.deps, f.staff, { name: 'No key', currency: 'USD' }, request());
    const b = await createTenant(f.deps, f.staff, { name: 'No key', currency: 'USD' }, request());
    expect(a.tenant.id).not.toBe(b.tenant.id);
  });

  it('refuses a blank or long name and an unknown, lower-case or withdrawn currency with invalid_request, before touching the ledger', async () => {
    const untouched: TenancyLedger = {
      createLedger: () => Promise.reject(new Error('must not be called')),
      openAccount: () => Promise.reject(new Error('must not be called')),
      listTransactions: () => Promise.reject(new Error('must not be called')),
      rollup: () => Promise.reject(new Error('must not be called')),
    };
    for (const input of [
      { name: '   ', currency: 'USD' },
      { name: 'x'.repeat(101), currency: 'USD' },
      { name: 'Bad currency', currency: 'XXQ' },
      { name: 'Lower case', currency: 'usd' },
      { name: 'Withdrawn', currency: 'HRK' },
    ]) {
      expect((await refusal(createTenant(f.withLedger(untouched), f.staff, input, request()))).code, JSON.stringify(input)).toBe('invalid_request');
    }
  });
});

describe('tenant reads', () => {
  it('lists tenants newest first with fee plan and commission mode, page by page', async () => {
    const made = [await f.tenant('List A'), await f.tenant('List B'), await f.tenant('List C')];
    const first = await listTenants(f.deps, { limit: 2 });
    expect(first.data.map((t) => t.id)).toEqual([made[2]!.id, made[1]!.id]);
    expect(first.data[0]).toMatchObject({ name: 'List C', commission_mode: 'deduct', fees: { payment: { bps: 0, flat: 0, min_fee: 0 } } });
    const second = await listTenants(f.deps, { cursor: first.next_cursor!, limit: 1 });
    expect(second.data.map((t) => t.id)).toEqual([made[0]!.id]);
  });

  it('refuses a cursor of another listing with invalid_request', async () => {
    const tenant = await f.tenant();
    const foreign = Buffer.from(JSON.stringify({ pk: `TENANT#${tenant.id}`, sk: 'TENANT', gsi1pk: 'USERS', gsi1sk: tenant.id })).toString('base64url');
    for (const cursor of ['not-a-cursor', foreign]) {
      expect((await refusal(listTenants(f.deps, { cursor, limit: 5 }))).code).toBe('invalid_request');
    }
  });

  it('reports the health rollup, balanced, and logs the read', async () => {
    const tenant = await f.tenant('Healthy');
    const user = await f.user(tenant.id);
    await f.ledger.post(
      tenant.ledger_id,
      { type: 'topup', legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount: 700, commodity: 'USD' }, { account_id: user.cash_account_id, direction: 'credit', amount: 700, commodity: 'USD' }] },
      uuidv7(),
    );
    const requestId = uuidv7();
    const health = await tenantHealth(f.deps, tenant.id, { actor: f.staff, requestId });
    expect(health).toMatchObject({ tenant_id: tenant.id, tenant_name: 'Healthy', ledger_id: tenant.ledger_id, currency: 'USD', balanced: true, commodities: [{ commodity: 'USD', total: 0, balanced: true }] });
    expect(health.rows.find((r) => r.owner_type === 'user')).toMatchObject({ purpose: 'cash', balance: 700, accounts: 1 });
    expect(health.rows.find((r) => r.purpose === 'funding')).toMatchObject({ balance: -700 });
    // The read's entry is queued before it is answered and written by the access-records worker.
    await settleQueues(f.platform);
    const log = await listAccessLog(f.deps, { limit: 100 });
    expect(log.data.find((e) => e.request_id === requestId)).toMatchObject({ operation: 'getTenantHealth', actor: { type: 'platform_staff', id: f.staff.id }, filters: { tenant_id: tenant.id } });
    expect((await refusal(tenantHealth(f.deps, uuidv7(), { actor: f.staff, requestId }))).code).toBe('tenant_not_found');
  });
});

describe('currencies', () => {
  it('keeps codes the runtime knows as currencies, with ISO minor units', () => {
    const known = new Set(Intl.supportedValuesOf('currency'));
    // VED (2021) is newer than the ICU data of some runtimes.
    const unknown = Object.keys(CURRENCY_MINOR_UNITS).filter((code) => !known.has(code) && code !== 'VED');
    expect(unknown).toEqual([]);
    expect([minorUnitsOf('USD'), minorUnitsOf('JPY'), minorUnitsOf('BHD'), minorUnitsOf('KRW')]).toEqual([2, 0, 3, 0]);
    expect(['XXQ', 'usd', 'XAU', 'XTS', 'XXX', 'BOV', 'HRK', 'BGN'].filter(isActiveCurrency)).toEqual([]);
  });
});
