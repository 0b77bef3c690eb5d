import type { Outcome } from '../http/outcome';
import * as accountChanges from './account-changes';
import * as accounts from './accounts';
import { createLedgerContext, type LedgerContext, type LedgerDeps } from './context';
import type { IdempotencyContext } from './idempotency';
import * as ledgers from './ledgers';
import * as postings from './postings';
import * as reads from './reads';
import { sweepAllShards } from './shards';
import type { Account, Entry, Ledger, Pending, PendingCreate, PostingCreate, Transaction } from './schemas';

export type { LedgerDeps } from './context';

/**
 * The ledger: double-entry postings on DynamoDB. Every money movement is ONE TransactWriteItems
 * holding the transaction, its entries, an update per account and the idempotency record, each
 * account update carrying its own conditions (active, right ledger and commodity, floor not
 * breached, version and minimum-available preconditions). Nothing is read on the hot path but
 * immutable account facts, cached per process; every check that can change is a condition, so the
 * check and the money commit together or not at all (./posting-plan.ts, ./refusals.ts).
 *
 * Balance convention: balance = credits - debits, for every account. available = posted - pending
 * debits. A floor is the lowest available balance allowed (null: none). Stored per account:
 * posted, pending_debits, pending_credits, available and headroom (= available - floor), so a
 * floor check is the condition `headroom >= amount` with no read.
 *
 * This class is the ledger's one entry point and says what each operation refuses; the work is
 * done by the modules of one job each: ledgers, accounts, postings, reads.
 */
export class LedgerService {
  private readonly context: LedgerContext;

  constructor(deps: LedgerDeps) {
    this.context = createLedgerContext(deps);
  }

  // Ledgers

  /** Creates a ledger owned by the consumer. */
  createLedger(consumerId: string, input: { name: string; commodity: string; metadata?: Record<string, string> }, idem?: IdempotencyContext): Promise<Outcome> {
    return ledgers.createLedger(this.context, consumerId, input, idem);
  }

  /** The consumer's ledger. Refuses: ledger_not_found (also for another consumer's ledger). */
  getLedger(consumerId: string, ledgerId: string): Promise<Ledger> {
    return ledgers.getLedger(this.context, consumerId, ledgerId);
  }

  /** The consumer's ledgers, newest first. Refuses: invalid (a cursor this listing did not return). */
  listLedgers(consumerId: string, cursor: string | undefined, limit: number): Promise<{ data: Ledger[]; next_cursor: string | null }> {
    return ledgers.listLedgers(this.context, consumerId, cursor, limit);
  }

  /**
   * Closes the books up to a time at least a minute ago: later postings and reversals effective at
   * or before it are refused. Refuses: invalid (a time less than a minute ago), ledger_not_found.
   */
  closePeriod(consumerId: string, ledgerId: string, closedThrough: string, idem?: IdempotencyContext): Promise<Outcome> {
    return ledgers.closePeriod(this.context, consumerId, ledgerId, closedThrough, idem);
  }

  // Accounts

  /**
   * Opens an account, spread over `shards` items when more than 1 (./shards.ts).
   * Refuses: ledger_not_found, conflict (same owner, purpose and commodity exists).
   */
  openAccount(
    consumerId: string,
    ledgerId: string,
    input: { owner_type: string; owner_id: string; purpose: string; commodity: string; floor: number | null; shards?: number; metadata?: Record<string, string> },
    idem?: IdempotencyContext,
  ): Promise<Outcome> {
    return accounts.openAccount(this.context, consumerId, ledgerId, input, idem);
  }

  /** Refuses: account_not_found (also for an account of another ledger or consumer). */
  getAccount(consumerId: string, ledgerId: string, accountId: string): Promise<Account> {
    return accounts.getAccount(this.context, consumerId, ledgerId, accountId);
  }

  /**
   * Changes an account's floor, status (on every shard) or shard count. Status moves: active <->
   * frozen, either -> closed (final, and only with nothing posted or pending); shards only rise.
   * Refuses: account_not_found, account_closed, insufficient_funds (the available balance is
   * already below the new floor), invalid (closing a non-empty account, lowering shards),
   * service_unavailable (the account kept changing concurrently).
   */
  updateAccount(consumerId: string, ledgerId: string, accountId: string, patch: { floor?: number | null; status?: 'active' | 'frozen' | 'closed'; shards?: number }): Promise<Account> {
    return accountChanges.updateAccount(this.context, consumerId, ledgerId, accountId, patch);
  }

  /** The account's entries, newest first. Refuses: account_not_found, invalid (cursor). */
  listEntries(consumerId: string, ledgerId: string, accountId: string, cursor: string | undefined, limit: number): Promise<{ data: Entry[]; next_cursor: string | null }> {
    return accounts.listEntries(this.context, consumerId, ledgerId, accountId, cursor, limit);
  }

  // Money

  /**
   * Posts a balanced transaction, or posts a pending reservation (`post_pending_id`).
   * Refuses: unbalanced, invalid, account_not_found, insufficient_funds, account_frozen,
   * account_closed, precondition_failed, limit_exceeded, period_closed, post_exceeds_pending,
   * pending_not_found, conflict (the pending is no longer open), idempotency_key_reuse.
   */
  post(consumerId: string, ledgerId: string, input: PostingCreate, idem: IdempotencyContext): Promise<Outcome> {
    return postings.post(this.context, consumerId, ledgerId, input, idem);
  }

  /** Reserves funds. Refuses as `post` does, without the pending-specific codes. */
  reserve(consumerId: string, ledgerId: string, input: PendingCreate, idem: IdempotencyContext): Promise<Outcome> {
    return postings.reserve(this.context, consumerId, ledgerId, input, idem);
  }

  /** Releases a reservation. Refuses: pending_not_found, conflict (already posted, voided or expired). */
  voidPending(consumerId: string, ledgerId: string, pendingId: string, idem: IdempotencyContext | undefined, outcome: 'voided' | 'expired' = 'voided'): Promise<Outcome> {
    return postings.voidPending(this.context, consumerId, ledgerId, pendingId, idem, outcome);
  }

  /**
   * Posts the mirror of a transaction, linked both ways. Refuses: transaction_not_found,
   * conflict (already reversed), invalid (a reversal, or part of an exchange group),
   * period_closed, and the account refusals of `post`.
   */
  reverse(consumerId: string, ledgerId: string, transactionId: string, input: { effective_at?: string; metadata?: Record<string, string> } | undefined, idem: IdempotencyContext): Promise<Outcome> {
    return postings.reverse(this.context, consumerId, ledgerId, transactionId, input, idem);
  }

  /** Voids every open pending whose expiry has passed; returns how many it expired. */
  expirePendings(): Promise<number> {
    return postings.expirePendings(this.context);
  }

  /** Sweeps every sharded account's shards into its own item; returns how many had something to move. */
  sweepShards(): Promise<number> {
    return sweepAllShards(this.context.deps, this.context.deps.clock.now());
  }

  // Reads

  /** Refuses: transaction_not_found (also for another ledger's or consumer's transaction). */
  getTransaction(consumerId: string, ledgerId: string, transactionId: string): Promise<Transaction> {
    return reads.getTransaction(this.context, consumerId, ledgerId, transactionId);
  }

  /** Refuses: pending_not_found (also for another ledger's or consumer's pending). */
  getPending(consumerId: string, ledgerId: string, pendingId: string): Promise<Pending> {
    return reads.getPending(this.context, consumerId, ledgerId, pendingId);
  }

  /** Transactions newest first, optionally of one type. Refuses: ledger_not_found, invalid (cursor). */
  listTransactions(consumerId: string, ledgerId: string, options: { cursor?: string; limit: number; type?: string }): Promise<{ data: Transaction[]; next_cursor: string | null }> {
    return reads.listTransactions(this.context, consumerId, ledgerId, options);
  }

  /**
   * The consumer's feed of committed transactions, oldest first from a cursor. Transactions younger
   * than the settle window are held back: ids are taken before commit, so a slow commit could
   * otherwise appear behind a cursor a reader already passed. Refuses: event_feed_blocked, invalid.
   */
  feed(consumerId: string, ledgerId: string, cursor: string | undefined, limit: number) {
    return reads.feed(this.context, consumerId, ledgerId, cursor, limit);
  }

  /** Balances by owner type, purpose and commodity, and whether each commodity nets to zero. */
  rollup(consumerId: string, ledgerId: string) {
    return reads.rollup(this.context, consumerId, ledgerId);
  }

  /** The stored answer of an idempotency key. Refuses: idempotency_key_not_found. */
  idempotencyRecord(consumerId: string, ledgerId: string, key: string) {
    return reads.idempotencyRecord(this.context, consumerId, ledgerId, key);
  }
}
