import { getItem, isConditionalCheckFailed, putItem, queryAll, queryPage, transact, type Item } from '../../aws/store';
import { codec, int, nullable, oneOf, opt, orElse, str } from '../../kernel/codec';
import type { Transaction } from '../../ledger-client/contract';
import type { StoreDeps } from '../deps';
import type { Claim, RecordReason } from './claims';
import { reconciliationKeys } from './keys';
import { amountOf, type LedgerReason } from './matcher';
import type { Orphan, Reconciliation } from './schemas';

/**
 * Orphans as stored: one item each in the tenant's reconciliation partition, sorted by `since`,
 * with what the worker needs to check it again (the transaction, or the record's claim), so the
 * endpoint reads them and never the ledger. An orphan is written once (its first detection
 * stays) and removed when it is matched.
 */

export interface StoredOrphan {
  key: { pk: string; sk: string };
  orphan: Orphan;
  /** For a transaction: the transaction as the feed gave it. */
  transaction?: Transaction;
  /** For a record: what it claims. */
  claim?: Claim;
}

export function transactionOrphan(tenantId: string, transaction: Transaction, reason: LedgerReason, detectedAt: string): StoredOrphan {
  return {
    key: reconciliationKeys.orphan(tenantId, transaction.created_at, 'txn', transaction.id),
    orphan: {
      kind: 'ledger_transaction',
      id: transaction.id,
      type: transaction.type,
      reference_id: transaction.reference_id,
      ledger_transaction_id: transaction.id,
      ...amountOf(transaction),
      reason,
      since: transaction.created_at,
      detected_at: detectedAt,
    },
    transaction,
  };
}

export function recordOrphan(tenantId: string, claim: Claim, reason: RecordReason, detectedAt: string): StoredOrphan {
  return {
    key: reconciliationKeys.orphan(tenantId, claim.since, 'record', claim.key),
    orphan: {
      kind: 'wallet_record',
      id: claim.record_id,
      type: claim.record_type,
      reference_id: claim.reference_id,
      ledger_transaction_id: claim.ledger_transaction_id,
      amount: claim.amount,
      commodity: claim.commodity,
      reason,
      since: claim.since,
      detected_at: detectedAt,
    },
    claim,
  };
}

/** Writes new orphans (one already listed keeps its first detection); answers how many were new. */
export async function listOrphans(deps: StoreDeps, tenantId: string, orphans: readonly StoredOrphan[]): Promise<number> {
  let created = 0;
  for (const stored of orphans) {
    const item: Item = {
      ...stored.key,
      entity: 'reconciliation_orphan',
      tenant_id: tenantId,
      ...stored.orphan,
      ...(stored.transaction ? { transaction: JSON.stringify(stored.transaction) } : {}),
      ...(stored.claim ? { claim: JSON.stringify(stored.claim) } : {}),
    };
    try {
      await putItem(deps, item, { condition: 'attribute_not_exists(pk)' });
      created += 1;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
  return created;
}

/** Removes orphans that are matched now (a saga finished); answers how many. */
export async function unlistOrphans(deps: StoreDeps, keys: readonly { pk: string; sk: string }[]): Promise<number> {
  for (let at = 0; at < keys.length; at += 25) {
    await transact(deps, keys.slice(at, at + 25).map((key) => ({ Delete: { TableName: deps.table, Key: key } })));
  }
  return keys.length;
}

const orphanRange = (tenantId: string) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :orphan)',
  ExpressionAttributeValues: { ':pk': reconciliationKeys.partition(tenantId), ':orphan': reconciliationKeys.orphanPrefix },
});

/** The tenant's open orphans, newest first, at most `limit`, as stored. */
export async function openOrphans(deps: StoreDeps, tenantId: string, limit: number): Promise<StoredOrphan[]> {
  const found: StoredOrphan[] = [];
  for await (const item of queryAll(deps, { ...orphanRange(tenantId), ScanIndexForward: false, Limit: Math.min(limit, 100) })) {
    found.push(fromItem(item));
    if (found.length >= limit) break;
  }
  return found;
}

/** How many orphans the tenant has open (their keys read, nothing else). */
export async function countOpenOrphans(deps: StoreDeps, tenantId: string): Promise<number> {
  let count = 0;
  for await (const item of queryAll(deps, { ...orphanRange(tenantId), ProjectionExpression: 'pk' })) if (item) count += 1;
  return count;
}

/** An orphan as the API shows it (kinds and reasons spelt here, so the worker does not build the API's schemas). */
const toOrphan = codec<Orphan>('reconciliation_orphan', {
  kind: oneOf('ledger_transaction', 'wallet_record'),
  id: str,
  type: str,
  reference_id: nullable(str),
  ledger_transaction_id: nullable(str),
  amount: int,
  commodity: str,
  reason: oneOf('no_record', 'record_names_other', 'no_reference', 'unknown_type', 'reversal', 'no_transaction', 'transaction_missing', 'transaction_mismatch'),
  since: str,
  detected_at: str,
});

/** What the worker keeps to check an orphan again: its key, and the transaction or the claim as JSON it wrote itself. */
const decodeRecheck = codec<{ pk: string; sk: string; transaction?: string; claim?: string }>('reconciliation_orphan', { pk: str, sk: str, transaction: opt(str), claim: opt(str) });

function fromItem(item: Item): StoredOrphan {
  const { pk, sk, transaction, claim } = decodeRecheck(item);
  return {
    key: { pk, sk },
    orphan: toOrphan(item),
    ...(transaction !== undefined ? { transaction: JSON.parse(transaction) as Transaction } : {}),
    ...(claim !== undefined ? { claim: JSON.parse(claim) as Claim } : {}),
  };
}

/** Where a tenant's reconciliation stands (its item in the tenant's reconciliation partition). */
export interface ReconciliationState {
  /** The id of the last feed event matched. */
  cursor: string | null;
  /** Everything posted before it has been matched. */
  checked_through: string | null;
  /** Every money record written before it has been checked. */
  records_through: string | null;
  transactions_checked: number;
  open_orphans: number;
  /** Moves by one on every save; a save is conditioned on it, so two runs never move one mark twice. */
  version: number;
}

/** The state item's codec; no item (a tenant never reconciled) reads as the start. */
export const toReconciliationState = codec<ReconciliationState>('reconciliation_state', {
  cursor: nullable(str),
  checked_through: nullable(str),
  records_through: nullable(str),
  transactions_checked: orElse(int, () => 0),
  open_orphans: orElse(int, () => 0),
  version: orElse(int, () => 0),
});

/**
 * Where the tenant's reconciliation stands and its open orphans, newest first, paged: read from
 * what the worker stored, never from the ledger. Refuses: invalid_request (cursor).
 */
export async function reconciliationReport(deps: StoreDeps, tenantId: string, query: { cursor?: string; limit: number }): Promise<Reconciliation> {
  const [state, page] = await Promise.all([
    getItem(deps, reconciliationKeys.state(tenantId), { consistent: false }),
    queryPage(deps, {
      partition: reconciliationKeys.partition(tenantId),
      cursor: query.cursor,
      limit: query.limit,
      sortKey: { expression: 'begins_with(sk, :orphan)', values: { ':orphan': reconciliationKeys.orphanPrefix } },
    }),
  ]);
  const { checked_through, transactions_checked } = toReconciliationState(state ?? {});
  return {
    checked_through,
    transactions_checked,
    orphans: page.items.map(toOrphan),
    has_more: page.next_cursor !== null,
    next_cursor: page.next_cursor,
  };
}
