import type { TransactItem } from '../aws/dynamodb';
import { getItem, isConditionalCheckFailed, queryPage, updateItem } from '../aws/store';
import type { Outcome } from '../http/outcome';
import { AppError } from '../kernel/errors';
import { idempotent, type LedgerContext } from './context';
import { ledgerOf } from './facts';
import type { IdempotencyContext } from './idempotency';
import { ledgerKeys } from './keys';
import { toAccount, toEntry } from './records';
import type { Account, Entry } from './schemas';

/** Accounts: opening, floors and status, entries (refusals documented on LedgerService). */

export async function openAccount(
  context: LedgerContext,
  consumerId: string,
  ledgerId: string,
  input: { owner_type: string; owner_id: string; purpose: string; commodity: string; floor: number | null; metadata?: Record<string, string> },
  idem?: IdempotencyContext,
): Promise<Outcome> {
  await ledgerOf(context, consumerId, ledgerId);
  const table = context.deps.table;
  return idempotent(context, idem, async (now) => {
    const id = context.deps.ids();
    const floor = input.floor;
    const stamp = now.toISOString();
    const item = {
      ...ledgerKeys.account(id),
      ...ledgerKeys.accountIndex(ledgerId, id),
      entity: 'account',
      id,
      ledger_id: ledgerId,
      owner_type: input.owner_type,
      owner_id: input.owner_id,
      purpose: input.purpose,
      commodity: input.commodity,
      floor: floor ?? 0,
      unbounded: floor === null,
      status: 'active',
      posted: 0,
      pending_debits: 0,
      pending_credits: 0,
      available: 0,
      headroom: floor === null ? 0 : -floor,
      version: 0,
      metadata: input.metadata ?? {},
      created_at: stamp,
      updated_at: stamp,
    };
    const items: TransactItem[] = [
      { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: table,
          Item: { ...ledgerKeys.accountUnique(ledgerId, input), entity: 'account_key', account_id: id },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ];
    return {
      items,
      roles: [{ kind: 'record' }, { kind: 'unique' }],
      status: 201,
      body: JSON.stringify(toAccount(item)),
      diagnose: (failure) =>
        failure.role.kind === 'unique' ? new AppError('conflict', `An account for this owner, purpose and commodity exists: ${String(failure.item?.account_id)}.`) : undefined,
    };
  });
}

export async function getAccount(context: LedgerContext, consumerId: string, ledgerId: string, accountId: string): Promise<Account> {
  await ledgerOf(context, consumerId, ledgerId);
  const item = await getItem(context.deps, ledgerKeys.account(accountId));
  if (!item || item.ledger_id !== ledgerId) throw new AppError('account_not_found', `No account ${accountId} in this ledger.`);
  return toAccount(item);
}

export async function updateAccount(
  context: LedgerContext,
  consumerId: string,
  ledgerId: string,
  accountId: string,
  patch: { floor?: number | null; status?: 'active' | 'frozen' | 'closed' },
): Promise<Account> {
  const current = await getAccount(context, consumerId, ledgerId, accountId);
  if (current.status === 'closed') throw new AppError('account_closed', 'A closed account cannot change.');
  const sets = ['updated_at = :now'];
  const conditions = ['#status <> :closed', 'ledger_id = :ledger'];
  const values: Record<string, unknown> = { ':now': context.deps.clock.now().toISOString(), ':closed': 'closed', ':ledger': ledgerId, ':one': 1 };
  if (patch.floor !== undefined) {
    sets.push('floor = :floor', 'unbounded = :unbounded', 'headroom = available - :floor');
    values[':floor'] = patch.floor ?? 0;
    values[':unbounded'] = patch.floor === null;
    if (patch.floor !== null) conditions.push('available >= :floor');
  }
  if (patch.status !== undefined) {
    sets.push('#status = :status');
    values[':status'] = patch.status;
    if (patch.status === 'closed') {
      conditions.push('posted = :zero AND pending_debits = :zero AND pending_credits = :zero');
      values[':zero'] = 0;
    }
  }
  try {
    const updated = await updateItem(context.deps, ledgerKeys.account(accountId), {
      expression: `SET ${sets.join(', ')} ADD version :one`,
      condition: conditions.join(' AND '),
      names: { '#status': 'status' },
      values,
      returnValues: 'ALL_NEW',
    });
    return toAccount(updated!);
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const item = await getItem(context.deps, ledgerKeys.account(accountId));
    if (item?.status === 'closed') throw new AppError('account_closed', 'A closed account cannot change.');
    if (patch.status === 'closed') throw new AppError('invalid', 'Only an account with nothing posted or pending can be closed.');
    throw new AppError('insufficient_funds', 'The available balance is below the requested floor.');
  }
}

export async function listEntries(context: LedgerContext, consumerId: string, ledgerId: string, accountId: string, cursor: string | undefined, limit: number): Promise<{ data: Entry[]; next_cursor: string | null }> {
  await getAccount(context, consumerId, ledgerId, accountId);
  const page = await queryPage(context.deps, {
    partition: ledgerKeys.account(accountId).pk,
    sortKey: { expression: 'begins_with(#sk, :entry)', names: { '#sk': 'sk' }, values: { ':entry': ledgerKeys.entryPrefix } },
    cursor,
    limit,
    consistent: true,
    invalidCode: 'invalid',
  });
  return { data: page.items.map(toEntry), next_cursor: page.next_cursor };
}
