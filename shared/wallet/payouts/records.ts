import { getItem, queryPage, type Page, type CreatedRange } from '../../aws/store';
import type { TransactItem } from '../../aws/dynamodb';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import { recordFields } from '../keys';
import { legOf } from '../money/legs';
import type { FeeRule } from '../tenancy/fees';
import { payoutKeys } from './keys';
import type { Payout, PayoutStatus } from './schemas';

/** The stored payout, its transitions and its reads. */

export interface PayoutRecord {
  id: string;
  tenant_id: string;
  merchant_id: string;
  amount: number;
  currency: string;
  /** The tenant's `payout` rule when the payout started: a later fee plan change does not reprice it. */
  fee_rule: FeeRule;
  fee: number;
  status: PayoutStatus;
  rail: string;
  rail_ref: string;
  failure_reason: string | null;
  description: string | null;
  metadata: Record<string, string>;
  ledger_id: string;
  /** The reservation of amount + fee on the merchant's settlement account. */
  pending_id: string;
  settlement_account_id: string;
  clearing_account_id: string;
  revenue_account_id: string;
  ledger_transaction_id: string | null;
  /** The rail event that moved it out of `pending`. */
  rail_event_id: string | null;
  created_at: string;
  updated_at: string;
}

export const publicPayout = (record: PayoutRecord): Payout => ({
  id: record.id,
  merchant_id: record.merchant_id,
  amount: record.amount,
  currency: record.currency,
  fee: record.fee,
  total_debit: record.amount + record.fee,
  status: record.status,
  rail: record.rail,
  rail_ref: record.rail_ref,
  failure_reason: record.failure_reason,
  description: record.description,
  metadata: record.metadata,
  ledger_transaction_id: record.ledger_transaction_id,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

export function payoutItem(record: PayoutRecord): Record<string, unknown> {
  return { ...payoutKeys.payout(record.id), ...payoutKeys.payoutIndexes(record.tenant_id, record.merchant_id, record.id), entity: 'payout', ...record };
}

/** The Put that ends a pending payout, in the same TransactWriteItems as its event: only from `pending`, so it ends once. */
export function settleItem(table: string, after: PayoutRecord): TransactItem {
  return {
    Put: {
      TableName: table,
      Item: payoutItem(after),
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'pending' },
    },
  };
}

const toRecord = (item: Record<string, unknown>): PayoutRecord => recordFields(item) as unknown as PayoutRecord;

/** The payout with this id, whatever its tenant (the rail webhook learns the tenant from it). */
export async function findPayoutRecord(deps: StoreDeps, payoutId: string): Promise<PayoutRecord | undefined> {
  const item = await getItem(deps, payoutKeys.payout(payoutId));
  return item ? toRecord(item) : undefined;
}

/**
 * A payout of the tenant, and of `merchantId` when the caller is confined to one merchant (a key
 * bound to a client). Refuses: not_found (unknown, another tenant's, another merchant's).
 */
export async function getPayoutRecord(deps: StoreDeps, tenantId: string, payoutId: string, merchantId?: string): Promise<PayoutRecord> {
  const record = await findPayoutRecord(deps, payoutId);
  if (!record || record.tenant_id !== tenantId || (merchantId !== undefined && record.merchant_id !== merchantId)) throw new AppError('not_found', `No payout ${payoutId}.`);
  return record;
}

/** The tenant's payouts, or one merchant's, newest first, optionally by status. */
export async function listPayoutRecords(deps: StoreDeps, tenantId: string, query: { merchant_id?: string; status?: PayoutStatus; cursor?: string; limit: number } & CreatedRange): Promise<Page<PayoutRecord>> {
  const byMerchant = query.merchant_id !== undefined;
  const page = await queryPage(deps, {
    index: byMerchant ? 'gsi2' : 'gsi1',
    partition: byMerchant ? payoutKeys.merchantPayouts(query.merchant_id!) : payoutKeys.tenantPayouts(tenantId),
    cursor: query.cursor, created: query,
    limit: query.limit,
    filter: query.status === undefined ? undefined : { expression: '#status = :status', names: { '#status': 'status' }, values: { ':status': query.status } },
    scanBudget: 1_000,
  });
  return { data: page.items.map(toRecord), next_cursor: page.next_cursor };
}

/** The paid posting of a payout: the whole hold leaves settlement, amount to clearing, fee to revenue. */
export function paidLegs(record: Pick<PayoutRecord, 'currency' | 'amount' | 'fee' | 'settlement_account_id' | 'clearing_account_id' | 'revenue_account_id'>) {
  const leg = legOf(record.currency);
  return [
    leg(record.settlement_account_id, 'debit', record.amount + record.fee),
    leg(record.clearing_account_id, 'credit', record.amount),
    ...(record.fee > 0 ? [leg(record.revenue_account_id, 'credit', record.fee)] : []),
  ];
}
