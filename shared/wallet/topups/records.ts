import { getItem } from '../../aws/store';
import type { TransactItem } from '../../aws/dynamodb';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import { codec, int, nullable, oneOf, str } from '../../kernel/codec';
import type { FeeRule } from '../tenancy/fees';
import { feeRule } from '../tenancy/records';
import { topupKeys } from './keys';
import type { Topup } from './schemas';
import { RESOLVE_ACTIONS, TOPUP_STATUSES, type ResolveAction, type TopupStatus } from './states';

/** The stored top-up and its reads. */

export interface TopupRecord {
  id: string;
  tenant_id: string;
  user_id: string;
  amount: number;
  currency: string;
  /** The tenant's `topup` rule when the top-up started: a later fee plan change does not reprice it. */
  fee_rule: FeeRule;
  fee: number;
  net_amount: number;
  gateway: string;
  status: TopupStatus;
  processor_ref: string;
  confirmed_amount: number | null;
  confirmed_currency: string | null;
  failure_reason: string | null;
  resolution: ResolveAction | null;
  ledger_transaction_id: string | null;
  /** The processor's refund, when an operator refunded a mismatch. */
  processor_refund_ref: string | null;
  /** The processor event that moved it out of `pending`. */
  processor_event_id: string | null;
  /**
   * The saga (operation id) that is changing the top-up, set before any ledger call and removed by
   * its commit: two changes of one top-up (a credit and a refund) can never both move money.
   */
  claim: string | null;
  created_at: string;
  updated_at: string;
}

export const publicTopup = (record: TopupRecord): Topup => ({
  id: record.id,
  user_id: record.user_id,
  amount: record.amount,
  currency: record.currency,
  fee: record.fee,
  net_amount: record.net_amount,
  gateway: record.gateway,
  status: record.status,
  processor_ref: record.processor_ref,
  confirmed_amount: record.confirmed_amount,
  confirmed_currency: record.confirmed_currency,
  failure_reason: record.failure_reason,
  resolution: record.resolution,
  ledger_transaction_id: record.ledger_transaction_id,
  ...(record.processor_refund_ref ? { processor_refund_ref: record.processor_refund_ref } : {}),
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** The full item of a record: keys, indexes and attributes (the claim only while one is held). */
export function topupItem(record: TopupRecord): Record<string, unknown> {
  const { claim, ...rest } = record;
  return {
    ...topupKeys.topup(record.id),
    ...topupKeys.topupIndexes(record.tenant_id, record.user_id, record.id),
    entity: 'topup',
    ...rest,
    ...(claim ? { claim } : {}),
  };
}

/**
 * The Put that moves a top-up from the status it was read in to `after`, in the same
 * TransactWriteItems as its event: only the saga holding the claim may, and only from that status.
 */
export function transitionItem(table: string, before: TopupRecord, after: TopupRecord, operationId: string): TransactItem {
  return {
    Put: {
      TableName: table,
      Item: topupItem({ ...after, claim: null }),
      ConditionExpression: '#status = :from AND claim = :operation',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':from': before.status, ':operation': operationId },
    },
  };
}

/** The top-up with this id, whatever its tenant (the webhook learns the tenant from it). */
export async function findTopupRecord(deps: Pick<StoreDeps, 'client' | 'table'>, topupId: string): Promise<TopupRecord | undefined> {
  const item = await getItem(deps, topupKeys.topup(topupId));
  return item ? toTopupRecord(item) : undefined;
}

/**
 * The tenant's top-up; `selfOnly` (a user token's user) confines the read to that user's.
 * Refuses: not_found (unknown, another tenant's, another user's).
 */
export async function getTopupRecord(deps: Pick<StoreDeps, 'client' | 'table'>, tenantId: string, topupId: string, options: { selfOnly?: string } = {}): Promise<TopupRecord> {
  const record = await findTopupRecord(deps, topupId);
  if (!record || record.tenant_id !== tenantId || (options.selfOnly !== undefined && record.user_id !== options.selfOnly)) {
    throw new AppError('not_found', `No top-up ${topupId}.`);
  }
  return record;
}

export const toTopupRecord = codec<TopupRecord>('topup', {
  id: str,
  tenant_id: str,
  user_id: str,
  amount: int,
  currency: str,
  fee_rule: feeRule,
  fee: int,
  net_amount: int,
  gateway: str,
  status: oneOf(...TOPUP_STATUSES),
  processor_ref: str,
  confirmed_amount: nullable(int),
  confirmed_currency: nullable(str),
  failure_reason: nullable(str),
  resolution: nullable(oneOf(...RESOLVE_ACTIONS)),
  ledger_transaction_id: nullable(str),
  processor_refund_ref: nullable(str),
  processor_event_id: nullable(str),
  claim: nullable(str),
  created_at: str,
  updated_at: str,
});
