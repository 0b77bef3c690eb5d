import type { TransactItem } from '../aws/dynamodb';
import { AppError } from '../kernel/errors';
import { ledgerKeys } from './keys';
import { transactionAttributes, type LedgerFacts } from './records';
import type { Transaction } from './schemas';

/**
 * The items of ONE posting's TransactWriteItems and the role of each (shared/ledger/refusals.ts
 * maps a failed condition back through it). Every check that can change with concurrent postings
 * is a condition on the item it guards, so check and money commit together:
 *  - the ledger: the effective date is after the closed period;
 *  - the transaction and its entries: fresh ids;
 *  - each account: active, of this ledger, floor kept (`headroom`), version and minimum-available
 *    preconditions; balances move with ADD;
 *  - each limit claim: its running total stays within its max;
 *  - a pending being posted, voided or expired: still open.
 */

/** What a posting changes on one account. */
export interface AccountDelta {
  posted: number;
  pendingDebits: number;
  pendingCredits: number;
}

/**
 * Where a write's change to each account lands. `landing` names the shard a sharded account's
 * change goes to (absent: the account's own item, where floors, holds and preconditions are
 * checked); `shards` is each sharded account's shard count (./shards.ts decides both).
 */
export interface Spread {
  landing: ReadonlyMap<string, number>;
  shards: ReadonlyMap<string, number>;
}

export const NOT_SPREAD: Spread = { landing: new Map(), shards: new Map() };

export function addDelta(deltas: Map<string, AccountDelta>, accountId: string, delta: AccountDelta): void {
  const current = deltas.get(accountId) ?? { posted: 0, pendingDebits: 0, pendingCredits: 0 };
  deltas.set(accountId, { posted: current.posted + delta.posted, pendingDebits: current.pendingDebits + delta.pendingDebits, pendingCredits: current.pendingCredits + delta.pendingCredits });
}

/** What each item of a posting stands for, so a failed condition maps back to a refusal (./refusals.ts). */
export type Role =
  | { kind: 'idempotency' }
  | { kind: 'ledger' }
  /** A Put under a fresh id: its condition cannot fail in practice. */
  | { kind: 'record' }
  /** A uniqueness marker: its condition fails when the unique value is taken. */
  | { kind: 'unique' }
  /** An account's own item (`shards`: how many shards it has, if sharded), or one of its shards (`shard`). */
  | { kind: 'account'; accountId: string; version?: number; minAvailable?: number; delta: AccountDelta; shard?: number; shards?: number }
  | { kind: 'claim'; key: string }
  | { kind: 'pending' }
  | { kind: 'original' };

export type PostingPlan = ReturnType<typeof postingPlan>;

export function postingPlan(table: string, ledger: LedgerFacts, effectiveAt: string | undefined, now: Date) {
  const ledgerId = ledger.id;
  const items: TransactItem[] = [];
  const roles: Role[] = [];
  if (effectiveAt) {
    items.push({
      ConditionCheck: {
        TableName: table,
        Key: ledgerKeys.ledger(ledgerId),
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(closed_through) OR closed_through < :effective)',
        ExpressionAttributeValues: { ':effective': effectiveAt },
      },
    });
    roles.push({ kind: 'ledger' });
  }
  const stamp = now.toISOString();

  /** A credit on one shard of a sharded account: no floor to check, only that the account takes money. */
  function addShardCredit(accountId: string, shard: number, delta: AccountDelta, requireActive: boolean) {
    // A shard holds credits only (posted never falls, no pending debits), so the account's own
    // item never overstates what it may debit (./shards.ts).
    if (delta.posted < 0 || delta.pendingDebits !== 0) throw new Error(`a debit or hold of account ${accountId} cannot land on a shard`);
    items.push({
      Update: {
        TableName: table,
        Key: ledgerKeys.accountShard(accountId, shard),
        UpdateExpression: 'SET updated_at = :now ADD posted :posted, pending_credits :pc',
        ConditionExpression: ['attribute_exists(pk)', 'ledger_id = :ledger', ...(requireActive ? ['#status = :active'] : [])].join(' AND '),
        ...(requireActive ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
        ExpressionAttributeValues: { ':ledger': ledgerId, ':posted': delta.posted, ':pc': delta.pendingCredits, ':now': stamp, ...(requireActive ? { ':active': 'active' } : {}) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
    roles.push({ kind: 'account', accountId, delta, shard });
  }

  return {
    items,
    roles,
    addTransaction(transaction: Transaction, spread: Spread = NOT_SPREAD) {
      items.push({
        Put: {
          TableName: table,
          // reversed_by is absent until a reversal sets it: the reversal's condition tests for that.
          Item: { ...ledgerKeys.transaction(ledger, transaction.id), ...transactionAttributes(transaction), ...ledgerKeys.transactionIndex(ledger, transaction.id) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      roles.push({ kind: 'record' });
      transaction.legs.forEach((leg, index) => {
        items.push({
          Put: {
            TableName: table,
            Item: {
              // A credit landing on a shard keeps its entry in that shard's partition.
              ...ledgerKeys.entry(leg.account_id, transaction.id, index, spread.landing.get(leg.account_id)),
              entity: 'entry',
              transaction_id: transaction.id,
              account_id: leg.account_id,
              type: transaction.type,
              direction: leg.direction,
              amount: leg.amount,
              commodity: leg.commodity,
              effective_at: transaction.effective_at,
              created_at: transaction.created_at,
            },
          },
        });
        roles.push({ kind: 'record' });
      });
    },
    addAccounts(
      ledger: string,
      deltas: Map<string, AccountDelta>,
      checks: { requireActive: boolean; versionIs?: { account_id: string; version: number }[]; minAvailableAfter?: { account_id: string; amount: number }[] },
      spread: Spread = NOT_SPREAD,
    ) {
      for (const requirement of [...(checks.versionIs ?? []), ...(checks.minAvailableAfter ?? [])]) {
        if (!deltas.has(requirement.account_id)) throw new AppError('invalid', `Precondition on account ${requirement.account_id}, which the posting does not touch.`);
      }
      for (const [accountId, delta] of deltas) {
        const shard = spread.landing.get(accountId);
        if (shard !== undefined) {
          addShardCredit(accountId, shard, delta, checks.requireActive);
          continue;
        }
        const available = delta.posted - delta.pendingDebits;
        const version = checks.versionIs?.find((v) => v.account_id === accountId)?.version;
        const minAvailable = checks.minAvailableAfter?.find((m) => m.account_id === accountId)?.amount;
        const conditions = ['attribute_exists(pk)', 'ledger_id = :ledger'];
        const values: Record<string, unknown> = { ':ledger': ledger, ':posted': delta.posted, ':pd': delta.pendingDebits, ':pc': delta.pendingCredits, ':available': available, ':one': 1, ':now': stamp };
        if (checks.requireActive) {
          conditions.push('#status = :active');
          values[':active'] = 'active';
        }
        if (available < 0) {
          conditions.push('(unbounded = :true OR headroom >= :need)');
          values[':true'] = true;
          values[':need'] = -available;
        }
        if (version !== undefined) {
          conditions.push('version = :version');
          values[':version'] = version;
        }
        if (minAvailable !== undefined) {
          conditions.push('available >= :minBefore');
          values[':minBefore'] = minAvailable - available;
        }
        items.push({
          Update: {
            TableName: table,
            Key: ledgerKeys.account(accountId),
            UpdateExpression: 'SET updated_at = :now ADD posted :posted, pending_debits :pd, pending_credits :pc, available :available, headroom :available, version :one',
            ConditionExpression: conditions.join(' AND '),
            ...(checks.requireActive ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
            ExpressionAttributeValues: values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        });
        roles.push({ kind: 'account', accountId, version, minAvailable, delta, shards: spread.shards.get(accountId) });
      }
    },
    addClaims(ledger: string, claims: { key: string; amount: number; max: number; expires_at?: string }[], at: Date) {
      const merged = new Map<string, { amount: number; max: number; expires_at?: string }>();
      for (const claim of claims) {
        const seen = merged.get(claim.key);
        if (seen && seen.max !== claim.max) throw new AppError('invalid', `Limit claim ${claim.key} is listed with two different max values.`);
        merged.set(claim.key, { amount: (seen?.amount ?? 0) + claim.amount, max: claim.max, expires_at: claim.expires_at ?? seen?.expires_at });
      }
      for (const [key, claim] of merged) {
        if (claim.amount > claim.max) throw new AppError('limit_exceeded', `The limit claim ${key} alone passes its max.`);
        const expiresEpoch = claim.expires_at ? Math.floor(new Date(claim.expires_at).getTime() / 1000) : undefined;
        if (expiresEpoch !== undefined && expiresEpoch * 1000 <= at.getTime()) throw new AppError('invalid', `Limit claim ${key} has already expired.`);
        items.push({
          Update: {
            TableName: table,
            Key: ledgerKeys.claim(ledger, key),
            UpdateExpression: `SET ledger_id = :ledger, claim_key = :key, max_total = :max${expiresEpoch ? ', expires_at_epoch = :exp' : ''} ADD claimed :amount`,
            ConditionExpression: 'attribute_not_exists(claimed) OR claimed <= :room',
            ExpressionAttributeValues: { ':ledger': ledger, ':key': key, ':max': claim.max, ':amount': claim.amount, ':room': claim.max - claim.amount, ...(expiresEpoch ? { ':exp': expiresEpoch } : {}) },
          },
        });
        roles.push({ kind: 'claim', key });
      }
    },
    resolvePending(pendingId: string, status: 'posted' | 'voided' | 'expired', at: Date, transactionId: string | null) {
      items.push({
        Update: {
          TableName: table,
          Key: ledgerKeys.pending(pendingId),
          UpdateExpression: 'SET #status = :status, resolved_at = :at, transaction_id = :txn REMOVE gsi2pk, gsi2sk',
          ConditionExpression: '#status = :open',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status, ':at': at.toISOString(), ':txn': transactionId, ':open': 'pending' },
        },
      });
      roles.push({ kind: 'pending' });
    },
    build() {
      return { items, roles };
    },
  };
}
