import { ConditionsFailed, getItem, putItem, queryPage, transact, type Page, type CreatedRange } from '../../aws/store';
import { codec, int, oneOf, orElse, str, strMap } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { StoreDeps, WalletDeps } from '../deps';
import { ledgerKeyOf } from '../saga/registry';
import { HOT_ACCOUNT_SHARDS, openAccountOnce } from '../tenancy/ledger-accounts';
import { getTenantRecord } from '../tenancy/tenants';
import { auditItem } from '../tenancy/audit';
import type { Actor } from '../deps';
import { merchantKeys } from './keys';

/** Merchants: who payments pay, each with a settlement account in the tenant's ledger (docs/payments.md). */

export interface Merchant {
  id: string;
  name: string;
  status: 'active';
  metadata: Record<string, string>;
  /** What payouts leave behind on the settlement account for refunds (docs/payouts.md). */
  refund_reserve: number;
  created_at: string;
}

/** The stored merchant: what the API shows, its tenant and its settlement account. */
export interface MerchantRecord extends Merchant {
  tenant_id: string;
  settlement_account_id: string;
}

/** The merchant item's codec (../../kernel/codec.ts): merchants from before the refund reserve keep none. */
const toRecord = codec<MerchantRecord>('merchant', {
  id: str,
  tenant_id: str,
  name: str,
  status: oneOf('active'),
  metadata: orElse(strMap, () => ({})),
  refund_reserve: orElse(int, () => 0),
  settlement_account_id: str,
  created_at: str,
});

const toMerchant = (record: MerchantRecord): Merchant => ({
  id: record.id,
  name: record.name,
  status: record.status,
  metadata: record.metadata,
  refund_reserve: record.refund_reserve,
  created_at: record.created_at,
});

/** Creates a merchant and its settlement account (owner_type merchant, purpose settlement, floor 0, spread over shards). */
export async function createMerchant(runtime: WalletDeps, tenantId: string, input: { name: string; metadata?: Record<string, string>; refund_reserve?: number }): Promise<Merchant> {
  const tenant = await getTenantRecord(runtime, tenantId);
  const id = runtime.ids();
  const settlement = await openAccountOnce(
    runtime.ledger(),
    tenant.ledger_id,
    { owner_type: 'merchant', owner_id: id, purpose: 'settlement', commodity: tenant.currency, floor: 0, shards: HOT_ACCOUNT_SHARDS.settlement },
    ledgerKeyOf(tenantId, id, 'settlement'),
  );
  const merchant: Merchant = { id, name: input.name, status: 'active', metadata: input.metadata ?? {}, refund_reserve: input.refund_reserve ?? 0, created_at: runtime.clock.now().toISOString() };
  await putItem(
    runtime,
    { ...merchantKeys.merchant(id), gsi1pk: merchantKeys.tenantMerchants(tenantId), gsi1sk: id, entity: 'merchant', tenant_id: tenantId, settlement_account_id: settlement, ...merchant },
    { condition: 'attribute_not_exists(pk)' },
  );
  return merchant;
}

/** The merchant as stored, of the tenant. Refuses: not_found (also another tenant's). */
export async function merchantRecord(deps: StoreDeps, tenantId: string, merchantId: string): Promise<MerchantRecord> {
  const item = await getItem(deps, merchantKeys.merchant(merchantId));
  if (!item || item.tenant_id !== tenantId) throw new AppError('not_found', `No merchant ${merchantId}.`);
  return toRecord(item);
}

export async function getMerchant(deps: StoreDeps, tenantId: string, merchantId: string): Promise<Merchant> {
  return toMerchant(await merchantRecord(deps, tenantId, merchantId));
}

export async function listMerchants(deps: StoreDeps, tenantId: string, query: { cursor?: string; limit: number } & CreatedRange): Promise<Page<Merchant>> {
  const page = await queryPage(deps, { index: 'gsi1', partition: merchantKeys.tenantMerchants(tenantId), cursor: query.cursor, created: query, limit: query.limit });
  return { data: page.items.map((item) => toMerchant(toRecord(item))), next_cursor: page.next_cursor };
}

/**
 * Changes a merchant's name, metadata or refund reserve (a payout started before keeps the reserve
 * it was quoted with). Audited with before and after, in the same transaction.
 * Refuses: not_found.
 */
export async function updateMerchant(
  deps: StoreDeps,
  tenantId: string,
  merchantId: string,
  patch: { name?: string; metadata?: Record<string, string>; refund_reserve?: number },
  audit: { actor: Actor; requestId: string },
): Promise<Merchant> {
  const before = await merchantRecord(deps, tenantId, merchantId);
  const after: MerchantRecord = { ...before, ...patch };
  try {
    await transact(deps, [
      // Only the fields the patch names: a concurrent update of another field is not written back over.
      {
        Update: {
          TableName: deps.table,
          Key: merchantKeys.merchant(merchantId),
          UpdateExpression: `SET ${Object.keys(patch).map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND tenant_id = :tenant',
          ExpressionAttributeNames: Object.fromEntries(Object.keys(patch).map((field, i) => [`#f${i}`, field])),
          ExpressionAttributeValues: { ':tenant': tenantId, ...Object.fromEntries(Object.values(patch).map((value, i) => [`:v${i}`, value])) },
        },
      },
      auditItem(deps, { tenantId, actor: audit.actor, action: 'merchant.update', target: { type: 'merchant', id: merchantId }, before: toMerchant(before), after: toMerchant(after), requestId: audit.requestId }),
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.indexes.includes(0)) throw new AppError('not_found', `No merchant ${merchantId}.`);
    throw error;
  }
  return toMerchant(after);
}
