import { AppError } from '../../kernel/errors';
import { decodeCursor, encodeCursor, unknownCursor } from '../../http/cursor';
import type { Entry, Transaction } from '../../ledger-client/contract';
import { LedgerRefusal } from '../../ledger-client/client';
import type { Page } from '../../aws/store';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import type { TransfersDeps } from './deps';
import type { TenantRecord } from '../tenancy/records';

/**
 * GET /v1/transactions (spec part 1: one of the two public views of the ledger). A user's view is
 * the entries of its cash account: one row per entry, its side and amount. The tenant's view (API
 * key or staff with ledger:read) is the tenant ledger's transactions with their legs. Both newest
 * first, cursor paged, optionally of one `type`. Nothing is stored on the wallet side: the ledger
 * is the record of money.
 */

export interface WalletTransaction {
  /** The ledger transaction's id. */
  id: string;
  type: string;
  currency: string;
  /** The user's side of it; null in the tenant view. */
  direction: 'debit' | 'credit' | null;
  /** The user's entry; in the tenant view, what the transaction moved (the sum of its debits). */
  amount: number;
  /** Tenant view only: every leg, by owner (account ids stay inside the ledger). */
  legs?: { owner_type: string; owner_id: string; purpose: string; direction: 'debit' | 'credit'; amount: number; commodity: string }[];
  effective_at: string;
  created_at: string;
}

export interface TransactionsViewer {
  /** A user token's (or IdP token's) own user. */
  userId?: string;
  scopes: ReadonlySet<string>;
}

/** At most this many ledger pages per request when a filter leaves pages sparse. */
const MAX_LEDGER_PAGES = 10;

/**
 * A page of the user's view (a user token's own user, or `user_id` for a tenant credential) or the
 * tenant's view. Refuses: user_not_found (unknown, another tenant's, or another user for a user
 * token), insufficient_scope (the user view needs balances:read for a user token; the tenant view
 * needs ledger:read), invalid_request (cursor).
 */
export async function listTransactions(
  deps: TransfersDeps,
  tenantId: string,
  query: { cursor?: string; limit: number; type?: string; user_id?: string },
  viewer: TransactionsViewer,
): Promise<Page<WalletTransaction>> {
  const userId = query.user_id ?? viewer.userId;
  if (viewer.userId !== undefined && userId !== viewer.userId) throw new AppError('user_not_found', `No user ${userId}.`);
  if (userId !== undefined && viewer.userId !== undefined && !viewer.scopes.has('balances:read')) {
    throw new AppError('insufficient_scope', 'Reading your transactions needs the scope balances:read.');
  }
  if (userId === undefined && !viewer.scopes.has('ledger:read')) {
    throw new AppError('insufficient_scope', "Reading the tenant's transactions needs the scope ledger:read.");
  }
  // Our cursor wraps the ledger's, bound to the view it pages: one view's cursor is refused by another.
  const binding = { listing: userId === undefined ? 'tenant_transactions' : 'user_transactions', owner: userId ?? tenantId };
  const ledgerCursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, binding, ['ledger']).ledger;
  const tenant = await getTenantRecord(deps, tenantId);
  const page = await withCursorRefusal(async () => {
    if (userId === undefined) return tenantPage(deps, tenant, ledgerCursor, query.limit, query.type);
    const user = await getUserRecord(deps, tenantId, userId);
    return userPage(deps, tenant, user.cash_account_id, ledgerCursor, query.limit, query.type);
  });
  return { data: page.data, next_cursor: page.next_cursor === null ? null : encodeCursor(binding, { ledger: page.next_cursor }) };
}

async function tenantPage(deps: TransfersDeps, tenant: TenantRecord, cursor: string | undefined, limit: number, type: string | undefined): Promise<Page<WalletTransaction>> {
  const page = await deps.ledger().listTransactions(tenant.ledger_id, { cursor, limit, type });
  return { data: page.data.map((transaction) => tenantRow(transaction, tenant.currency)), next_cursor: page.next_cursor };
}

/**
 * The account's rows, newest first. With a type filter, ledger pages are read until the page is
 * full (each asking only for what is still missing, so a ledger cursor never skips a row).
 */
async function userPage(deps: TransfersDeps, tenant: TenantRecord, accountId: string, cursor: string | undefined, limit: number, type: string | undefined): Promise<Page<WalletTransaction>> {
  const ledger = deps.ledger();
  const read = async (at: string | undefined, count: number) => {
    const page = await ledger.listEntries(tenant.ledger_id, accountId, { cursor: at, limit: count });
    return { rows: page.data.map(entryRow), next_cursor: page.next_cursor };
  };
  const sparse = type !== undefined;
  const data: WalletTransaction[] = [];
  let next: string | null | undefined = cursor;
  for (let pages = 0; pages < MAX_LEDGER_PAGES; pages += 1) {
    const page = await read(next ?? undefined, limit - data.length);
    data.push(...page.rows.filter((row) => type === undefined || row.type === type));
    next = page.next_cursor;
    if (!sparse || next === null || data.length >= limit) break;
  }
  return { data, next_cursor: next ?? null };
}

function entryRow(entry: Entry): WalletTransaction {
  return { id: entry.transaction_id, type: entry.type, currency: entry.commodity, direction: entry.direction, amount: entry.amount, effective_at: entry.effective_at, created_at: entry.created_at };
}

function tenantRow(transaction: Transaction, currency: string): WalletTransaction {
  return {
    id: transaction.id,
    type: transaction.type,
    currency,
    direction: null,
    amount: transaction.legs.filter((leg) => leg.direction === 'debit' && leg.commodity === currency).reduce((sum, leg) => sum + leg.amount, 0),
    legs: transaction.legs.map(({ owner_type, owner_id, purpose, direction, amount, commodity }) => ({ owner_type, owner_id, purpose, direction, amount, commodity })),
    effective_at: transaction.effective_at,
    created_at: transaction.created_at,
  };
}

/**
 * GET /v1/transactions/{transactionId}: one transaction of the tenant's ledger, in the tenant view.
 * Each tenant has a ledger of its own, so another tenant's id is simply absent from it. Refuses:
 * transaction_not_found.
 */
export async function getTransaction(deps: TransfersDeps, tenantId: string, transactionId: string): Promise<WalletTransaction> {
  const tenant = await getTenantRecord(deps, tenantId);
  try {
    return tenantRow(await deps.ledger().getTransaction(tenant.ledger_id, transactionId), tenant.currency);
  } catch (error) {
    if (error instanceof LedgerRefusal && error.status === 404) throw new AppError('transaction_not_found', `No transaction ${transactionId}.`);
    throw error;
  }
}

/** The ledger refuses a cursor it did not issue with `invalid`: the client's error, not ours. */
async function withCursorRefusal<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof LedgerRefusal && error.code === 'invalid') throw unknownCursor();
    throw error;
  }
}
