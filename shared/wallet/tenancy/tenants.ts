import { createHash } from 'node:crypto';
import { fingerprintOf } from '../../http/json';
import { codec, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { walletKeys } from '../keys';
import { recordCrossTenantRead } from './access-log';
import { auditItem } from './audit';
import { isActiveCurrency } from './currencies';
import type { Actor, StoreDeps, TenancyDeps } from '../deps';
import { type CommissionMode, type PublicFees, defaultFeePlan, publicFees } from './fees';
import { HOT_ACCOUNT_SHARDS, openAccountOnce } from './ledger-accounts';
import { decodeTenant, type TenantRecord, type TenantStatus } from './records';
import { ConditionsFailed, getItem, isConditionalCheckFailed, putItem, queryPage, transact, type Page, type CreatedRange } from '../../aws/store';

/**
 * Tenants (spec part 2 "Tenant", part 4 items 11 and 12). A tenant owns one ledger in its currency,
 * created through the ledger API before the tenant row, with two tenant accounts: `revenue` (fees
 * and commissions it earns; floor 0, so it never pays out more than it earned) and `funding` (the
 * source of top-ups; no floor, it goes negative as money enters the wallets).
 */

/** What the API shows of a tenant. */
export interface Tenant {
  id: string;
  name: string;
  currency: string;
  status: TenantStatus;
  fees: PublicFees;
  commission_mode: CommissionMode;
  created_at: string;
}

export const publicTenant = (record: TenantRecord): Tenant => ({
  id: record.id,
  name: record.name,
  currency: record.currency,
  status: record.status,
  fees: publicFees(record.fees),
  commission_mode: record.commission_mode,
  created_at: record.created_at,
});

export const TENANT_NAME_MAX = 100;
/** As long as the ledger keeps its idempotency records, so a retry inside it resumes the same tenant. */
export const TENANT_CREATION_RETENTION_SECONDS = 24 * 3600;

/** The tenant's row. Refuses: tenant_not_found. */
export async function getTenantRecord(deps: StoreDeps, tenantId: string): Promise<TenantRecord> {
  const item = await getItem(deps, walletKeys.tenant(tenantId));
  if (!item) throw new AppError('tenant_not_found', `No tenant ${tenantId}.`);
  return toTenantRecord(item);
}

export async function findTenantRecord(deps: StoreDeps, tenantId: string): Promise<TenantRecord | undefined> {
  const item = await getItem(deps, walletKeys.tenant(tenantId));
  return item ? toTenantRecord(item) : undefined;
}

/**
 * Provisions a tenant: its ledger first, then its revenue and funding accounts in that ledger, then
 * the tenant row and its audit record in one transaction. Every step is idempotent on the tenant
 * id, so a retry resumes where a failed attempt stopped. With an Idempotency-Key the tenant id is
 * reserved under the key (per caller, 24 h) and a retry answers the same tenant (`replayed`);
 * without one, each call provisions a new tenant.
 * Refuses: invalid_request (blank or long name, currency not active), idempotency_key_reuse (the
 * key was used for another name or currency).
 */
export async function createTenant(
  deps: TenancyDeps,
  actor: Actor,
  input: { name: string; currency: string },
  options: { requestId: string; idempotencyKey?: string },
): Promise<{ tenant: Tenant; replayed: boolean }> {
  const name = input.name.trim();
  const { currency } = input;
  if (name.length === 0 || name.length > TENANT_NAME_MAX) {
    throw new AppError('invalid_request', `name must be 1 to ${TENANT_NAME_MAX} characters and not blank.`, { errors: [{ field: 'name', message: 'blank or too long' }] });
  }
  if (!isActiveCurrency(currency)) {
    throw new AppError('invalid_request', `${currency} is not an active ISO 4217 currency code.`, { errors: [{ field: 'currency', message: 'not an active ISO 4217 code' }] });
  }

  const tenantId = options.idempotencyKey === undefined ? deps.ids() : await reserveTenantId(deps, actor, options.idempotencyKey, { name, currency });
  const existing = await findTenantRecord(deps, tenantId);
  if (existing) return { tenant: publicTenant(existing), replayed: true };

  const ledgerClient = deps.ledger();
  // Keys derive from the tenant id, so the same tenant can never get a second ledger or account.
  const ledger = await ledgerClient.createLedger({ name, commodity: currency, metadata: { tenant_id: tenantId } }, `tenant-ledger:${tenantId}`);
  const account = (purpose: 'revenue' | 'funding', floor: number | null, shards?: number) =>
    openAccountOnce(ledgerClient, ledger.id, { owner_type: 'tenant', owner_id: tenantId, purpose, commodity: currency, floor, shards }, `tenant-account:${purpose}`);
  // Revenue takes every fee and commission of the tenant: spread. Funding is debited by every
  // top-up, and debits land on the account's own item, so shards would not help it.
  const [revenue, funding] = await Promise.all([account('revenue', 0, HOT_ACCOUNT_SHARDS.revenue), account('funding', null)]);

  const now = deps.clock.now().toISOString();
  const plan = defaultFeePlan();
  const record: TenantRecord = {
    id: tenantId,
    name,
    currency,
    status: 'active',
    ledger_id: ledger.id,
    accounts: { revenue, funding },
    fees: plan.fees,
    commission_mode: plan.commission_mode,
    version: 1,
    created_at: now,
    updated_at: now,
  };
  const tenant = publicTenant(record);
  try {
    await transact(deps, [
      {
        Put: {
          TableName: deps.table,
          Item: { ...walletKeys.tenant(tenantId), ...walletKeys.tenantsIndex(tenantId), entity: 'tenant', ...record },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      auditItem(deps, { tenantId, actor, action: 'tenant.create', target: { type: 'tenant', id: tenantId }, after: { ...tenant, ledger_id: ledger.id }, requestId: options.requestId }),
    ]);
  } catch (error) {
    // A concurrent twin with the same key committed first: answer its tenant.
    if (!(error instanceof ConditionsFailed)) throw error;
    return { tenant: publicTenant(await getTenantRecord(deps, tenantId)), replayed: true };
  }
  return { tenant, replayed: false };
}

/**
 * The tenant id reserved under (caller, Idempotency-Key), reserving a fresh one on first use.
 * Refuses: idempotency_key_reuse when the key was used for another name or currency.
 */
async function reserveTenantId(deps: StoreDeps, actor: Actor, idempotencyKey: string, body: { name: string; currency: string }): Promise<string> {
  const keyHash = sha256(`${actor.kind}\n${actor.id}\n${idempotencyKey}`);
  const fingerprint = fingerprintOf('tenant.create', body);
  // Reservations written before the one fingerprint helper: kept for their 24 hours.
  const legacyFingerprint = sha256(JSON.stringify([body.name, body.currency]));
  const now = deps.clock.now();
  const nowEpoch = Math.floor(now.getTime() / 1000);
  const tenantId = deps.ids();
  try {
    await putItem(
      deps,
      {
        ...walletKeys.tenantCreation(keyHash),
        entity: 'tenant_creation',
        tenant_id: tenantId,
        fingerprint,
        created_at: now.toISOString(),
        expires_at_epoch: nowEpoch + TENANT_CREATION_RETENTION_SECONDS,
      },
      // TTL deletes lazily: an expired reservation is as good as none.
      { condition: 'attribute_not_exists(pk) OR expires_at_epoch <= :now', values: { ':now': nowEpoch } },
    );
    return tenantId;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
  const reserved = await getItem(deps, walletKeys.tenantCreation(keyHash));
  if (!reserved) throw new AppError('service_unavailable', 'The Idempotency-Key record changed concurrently; retry the request.');
  if (reserved.fingerprint !== fingerprint && reserved.fingerprint !== legacyFingerprint) {
    throw new AppError('idempotency_key_reuse', 'This Idempotency-Key was used to create a tenant with another name or currency.');
  }
  return decodeTenantCreation(reserved).tenant_id;
}

/** Every tenant, newest first. Refuses: invalid_request (cursor). */
export async function listTenants(deps: StoreDeps, page: { cursor?: string; limit: number } & CreatedRange): Promise<Page<Tenant>> {
  const result = await queryPage(deps, { index: 'gsi1', partition: walletKeys.tenantsPartition, cursor: page.cursor, created: page, limit: page.limit });
  return { data: result.items.map((item) => publicTenant(toTenantRecord(item))), next_cursor: result.next_cursor };
}

/** Every tenant row, newest first: one index page per 100 tenants (platform reads only). */
export async function allTenantRecords(deps: StoreDeps): Promise<TenantRecord[]> {
  const records: TenantRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await queryPage(deps, { index: 'gsi1', partition: walletKeys.tenantsPartition, cursor, limit: 100 });
    records.push(...page.items.map(toTenantRecord));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return records;
}

export interface RollupRow {
  owner_type: string;
  purpose: string;
  commodity: string;
  balance: number;
  pending_debits: number;
  pending_credits: number;
  accounts: number;
}

export interface TenantHealth {
  tenant_id: string;
  tenant_name: string;
  ledger_id: string;
  currency: string;
  rows: RollupRow[];
  commodities: { commodity: string; total: number; balanced: boolean }[];
  /** Every commodity nets to zero across the tenant's ledger. */
  balanced: boolean;
}

/**
 * The tenant's ledger rollup: balances by owner type, purpose and commodity, and whether every
 * commodity nets to zero. A platform read of one tenant's money, so it is logged.
 * Refuses: tenant_not_found.
 */
export async function tenantHealth(deps: TenancyDeps, tenantId: string, context: { actor: Actor; requestId: string }): Promise<TenantHealth> {
  const tenant = await getTenantRecord(deps, tenantId);
  const rollup = await deps.ledger().rollup(tenant.ledger_id);
  await recordCrossTenantRead(deps, { actor: context.actor, operation: 'getTenantHealth', filters: { tenant_id: tenantId }, count: rollup.rows.length, requestId: context.requestId });
  return {
    tenant_id: tenant.id,
    tenant_name: tenant.name,
    ledger_id: tenant.ledger_id,
    currency: tenant.currency,
    rows: rollup.rows,
    commodities: rollup.commodities,
    balanced: rollup.balanced,
  };
}

/** The tenant row's codec (./records.ts). */
export const toTenantRecord = decodeTenant;

/** The reservation of a tenant id under an Idempotency-Key. */
const decodeTenantCreation = codec<{ tenant_id: string }>('tenant_creation', { tenant_id: str });

const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64url');
