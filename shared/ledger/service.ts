import { BatchGetCommand, GetCommand, QueryCommand, UpdateCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../kernel/clock';
import { AppError, type ErrorCode } from '../kernel/errors';
import type { IdGenerator } from '../kernel/ids';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { consumerKeys } from './consumers';
import type { Outcome } from '../http/outcome';
import { IdempotencyStore, type IdempotencyContext } from './idempotency';
import { ACCOUNT_INDEX_SHARDS, PENDING_INDEX_SHARDS, ledgerKeys } from './keys';
import type {
  Account,
  Entry,
  Ledger,
  LegInput,
  LegOutput,
  Pending,
  PendingCreate,
  PostingCreate,
  Transaction,
} from './schemas';
import { dueKeys } from '../aws/due-keys';
import type { TransactItem } from '../aws/dynamodb';
import { ConditionsFailed, MAX_TRANSACT_ITEMS, TransactionTooLarge, transact } from '../aws/store';

/**
 * The ledger: double-entry postings on DynamoDB. Every money movement is ONE TransactWriteItems
 * holding the transaction, its entries, an update per account and the idempotency record, each
 * account update carrying its own conditions (active, right ledger and commodity, floor not
 * breached, version and minimum-available preconditions). Nothing is read on the hot path but
 * immutable account facts, cached per process; every check that can change is a condition, so the
 * check and the money commit together or not at all.
 *
 * Balance convention: balance = credits - debits, for every account. available = posted - pending
 * debits. A floor is the lowest available balance allowed (null: none). Stored per account:
 * posted, pending_debits, pending_credits, available and headroom (= available - floor), so a
 * floor check is the condition `headroom >= amount` with no read.
 */

export interface LedgerDeps {
  client: DynamoDBDocumentClient;
  table: string;
  clock: Clock;
  ids: IdGenerator;
  /** How long an idempotency key is remembered (default 24 h). */
  idempotencyRetentionSeconds?: number;
  /** The feed holds back transactions younger than this, so a late commit cannot land behind a cursor. */
  feedSettleMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Immutable facts of a ledger or account, safe to cache for the life of a process. */
interface LedgerFacts {
  id: string;
  consumer_id: string;
}
interface AccountFacts {
  id: string;
  ledger_id: string;
  owner_type: string;
  owner_id: string;
  purpose: string;
  commodity: string;
}

interface AccountDelta {
  posted: number;
  pendingDebits: number;
  pendingCredits: number;
}

type Role =
  | { kind: 'idempotency' }
  | { kind: 'ledger' }
  /** A Put under a fresh id: its condition cannot fail in practice. */
  | { kind: 'record' }
  /** A uniqueness marker: its condition fails when the unique value is taken. */
  | { kind: 'unique' }
  | { kind: 'account'; accountId: string; version?: number; minAvailable?: number; delta: AccountDelta }
  | { kind: 'claim'; key: string }
  | { kind: 'pending' }
  | { kind: 'original' };

/** Refusals that depend on state and are therefore remembered under the Idempotency-Key. */
const REMEMBERED_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  'insufficient_funds',
  'account_frozen',
  'account_closed',
  'precondition_failed',
  'limit_exceeded',
  'period_closed',
  'post_exceeds_pending',
  'conflict',
]);

const FACTS_CACHE_LIMIT = 50_000;
const MAX_FUTURE_EFFECTIVE_MS = 60_000;

export class LedgerService {
  private readonly idempotency: IdempotencyStore;
  private readonly ledgerFacts = new Map<string, LedgerFacts>();
  private readonly accountFacts = new Map<string, AccountFacts>();

  constructor(private readonly deps: LedgerDeps) {
    this.idempotency = new IdempotencyStore(deps.client, deps.table, deps.idempotencyRetentionSeconds ?? 24 * 3600);
  }

  // ---------------------------------------------------------------------------------------------
  // Ledgers

  /** Creates a ledger owned by the consumer. */
  async createLedger(consumerId: string, input: { name: string; commodity: string; metadata?: Record<string, string> }, idem?: IdempotencyContext): Promise<Outcome> {
    return this.idempotent(idem, async (now) => {
      const id = this.deps.ids();
      const ledger: Ledger = { id, name: input.name, commodity: input.commodity, metadata: input.metadata ?? {}, closed_through: null, created_at: now.toISOString() };
      const items: TransactItem[] = [
        {
          Put: {
            TableName: this.deps.table,
            // closed_through is absent until a period is closed: the posting condition tests for that.
            Item: { ...ledgerKeys.ledger(id), entity: 'ledger', consumer_id: consumerId, ...ledger, closed_through: undefined, gsi1pk: ledgerKeys.ledgersOfConsumer(consumerId), gsi1sk: id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ];
      return { items, roles: [{ kind: 'record' }], status: 201, body: ledger };
    });
  }

  /** The consumer's ledger. Refuses: ledger_not_found (also for another consumer's ledger). */
  async getLedger(consumerId: string, ledgerId: string): Promise<Ledger> {
    const item = await this.getItem(ledgerKeys.ledger(ledgerId));
    if (!item || item.consumer_id !== consumerId) throw new AppError('ledger_not_found', `No ledger ${ledgerId}.`);
    return toLedger(item);
  }

  async listLedgers(consumerId: string, cursor: string | undefined, limit: number): Promise<{ data: Ledger[]; next_cursor: string | null }> {
    const page = await this.queryPage({ IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': ledgerKeys.ledgersOfConsumer(consumerId) }, ScanIndexForward: false }, cursor, limit);
    return { data: page.items.map(toLedger), next_cursor: page.next };
  }

  /** Closes the books up to a time: later postings and reversals effective at or before it are refused. Refuses: invalid, ledger_not_found. */
  async closePeriod(consumerId: string, ledgerId: string, closedThrough: string): Promise<{ ledger_id: string; closed_through: string }> {
    await this.ledgerOf(consumerId, ledgerId);
    const now = this.deps.clock.now();
    const through = new Date(closedThrough);
    if (through.getTime() > now.getTime()) throw new AppError('invalid', 'A period can only be closed up to the present.');
    try {
      // Periods only move forward: closing up to an earlier time than already closed changes nothing.
      const result = await this.deps.client.send(
        new UpdateCommand({
          TableName: this.deps.table,
          Key: ledgerKeys.ledger(ledgerId),
          UpdateExpression: 'SET closed_through = :t',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(closed_through) OR closed_through < :t)',
          ExpressionAttributeValues: { ':t': through.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { ledger_id: ledgerId, closed_through: String(result.Attributes?.closed_through) };
    } catch (error) {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      const ledger = await this.getLedger(consumerId, ledgerId);
      return { ledger_id: ledgerId, closed_through: ledger.closed_through ?? through.toISOString() };
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Accounts

  /** Opens an account. Refuses: ledger_not_found, conflict (same owner, purpose and commodity exists). */
  async openAccount(
    consumerId: string,
    ledgerId: string,
    input: { owner_type: string; owner_id: string; purpose: string; commodity: string; floor: number | null; metadata?: Record<string, string> },
    idem?: IdempotencyContext,
  ): Promise<Outcome> {
    await this.ledgerOf(consumerId, ledgerId);
    return this.idempotent(idem, async (now) => {
      const id = this.deps.ids();
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
        { Put: { TableName: this.deps.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
        {
          Put: {
            TableName: this.deps.table,
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
        body: toAccount(item),
        diagnose: (failure) =>
          failure.role.kind === 'unique'
            ? new AppError('conflict', `An account for this owner, purpose and commodity exists: ${String(failure.item?.account_id)}.`)
            : undefined,
      };
    });
  }

  /** Refuses: account_not_found (also for an account of another ledger or consumer). */
  async getAccount(consumerId: string, ledgerId: string, accountId: string): Promise<Account> {
    await this.ledgerOf(consumerId, ledgerId);
    const item = await this.getItem(ledgerKeys.account(accountId));
    if (!item || item.ledger_id !== ledgerId) throw new AppError('account_not_found', `No account ${accountId} in this ledger.`);
    return toAccount(item);
  }

  /**
   * Changes an account's floor or status. Status moves: active <-> frozen, either -> closed (final,
   * and only with nothing posted or pending). Refuses: account_not_found, account_closed,
   * insufficient_funds (the available balance is already below the new floor), invalid.
   */
  async updateAccount(consumerId: string, ledgerId: string, accountId: string, patch: { floor?: number | null; status?: 'active' | 'frozen' | 'closed' }): Promise<Account> {
    const current = await this.getAccount(consumerId, ledgerId, accountId);
    if (current.status === 'closed') throw new AppError('account_closed', 'A closed account cannot change.');
    const sets = ['updated_at = :now'];
    const conditions = ['#status <> :closed', 'ledger_id = :ledger'];
    const values: Record<string, unknown> = { ':now': this.deps.clock.now().toISOString(), ':closed': 'closed', ':ledger': ledgerId, ':one': 1 };
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
      const result = await this.deps.client.send(
        new UpdateCommand({
          TableName: this.deps.table,
          Key: ledgerKeys.account(accountId),
          UpdateExpression: `SET ${sets.join(', ')} ADD version :one`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toAccount(result.Attributes!);
    } catch (error) {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      const item = await this.getItem(ledgerKeys.account(accountId));
      if (item?.status === 'closed') throw new AppError('account_closed', 'A closed account cannot change.');
      if (patch.status === 'closed') throw new AppError('invalid', 'Only an account with nothing posted or pending can be closed.');
      throw new AppError('insufficient_funds', 'The available balance is below the requested floor.');
    }
  }

  /** The account's entries, newest first. Refuses: account_not_found, invalid (cursor). */
  async listEntries(consumerId: string, ledgerId: string, accountId: string, cursor: string | undefined, limit: number): Promise<{ data: Entry[]; next_cursor: string | null }> {
    await this.getAccount(consumerId, ledgerId, accountId);
    const page = await this.queryPage(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entry)',
        ExpressionAttributeValues: { ':pk': ledgerKeys.account(accountId).pk, ':entry': ledgerKeys.entryPrefix },
        ScanIndexForward: false,
        ConsistentRead: true,
      },
      cursor,
      limit,
    );
    return { data: page.items.map(toEntry), next_cursor: page.next };
  }

  // ---------------------------------------------------------------------------------------------
  // Money

  /**
   * Posts a balanced transaction, or posts a pending reservation (`post_pending_id`).
   * Refuses: unbalanced, invalid, account_not_found, insufficient_funds, account_frozen,
   * account_closed, precondition_failed, limit_exceeded, period_closed, post_exceeds_pending,
   * pending_not_found, conflict (the pending is no longer open), idempotency_key_reuse.
   */
  async post(consumerId: string, ledgerId: string, input: PostingCreate, idem: IdempotencyContext): Promise<Outcome> {
    await this.ledgerOf(consumerId, ledgerId);
    return this.idempotent(idem, async (now) => {
      const effectiveAt = this.effectiveAt(input.effective_at, now);
      const pending = input.post_pending_id ? await this.openPending(ledgerId, input.post_pending_id, now) : undefined;
      const legs = input.legs ?? pending!.legs.map(({ account_id, direction, amount, commodity }) => ({ account_id, direction, amount, commodity }));
      const commodities = assertBalanced(legs);
      const facts = await this.accountsOf(ledgerId, legs.map((l) => l.account_id));
      assertCommodities(legs, facts);

      const deltas = new Map<string, AccountDelta>();
      for (const leg of legs) addDelta(deltas, leg.account_id, { posted: leg.direction === 'credit' ? leg.amount : -leg.amount, pendingDebits: 0, pendingCredits: 0 });
      if (pending) {
        assertWithinPending(legs, pending);
        // Posting a pending releases its whole reservation; what is not posted is given back.
        for (const leg of pending.legs) {
          addDelta(deltas, leg.account_id, leg.direction === 'debit' ? { posted: 0, pendingDebits: -leg.amount, pendingCredits: 0 } : { posted: 0, pendingDebits: 0, pendingCredits: -leg.amount });
        }
      }

      const transaction = this.newTransaction(ledgerId, input, legs, facts, effectiveAt, now, { exchange: commodities.size > 1, pendingId: pending?.id ?? null });
      const plan = this.plan(ledgerId, effectiveAt, now);
      plan.addTransaction(transaction);
      plan.addAccounts(ledgerId, deltas, { requireActive: true, versionIs: input.version_is, minAvailableAfter: input.min_available_after });
      plan.addClaims(ledgerId, input.limit_claims ?? [], now);
      if (pending) plan.resolvePending(pending.id, 'posted', now, transaction.id);
      return { ...plan.build(), status: 201, body: transaction };
    });
  }

  /** Reserves funds. Refuses as `post` does, without the pending-specific codes. */
  async reserve(consumerId: string, ledgerId: string, input: PendingCreate, idem: IdempotencyContext): Promise<Outcome> {
    await this.ledgerOf(consumerId, ledgerId);
    return this.idempotent(idem, async (now) => {
      assertBalanced(input.legs);
      if (input.expires_at && new Date(input.expires_at).getTime() <= now.getTime()) throw new AppError('invalid', 'expires_at must be in the future.');
      const facts = await this.accountsOf(ledgerId, input.legs.map((l) => l.account_id));
      assertCommodities(input.legs, facts);
      const deltas = new Map<string, AccountDelta>();
      for (const leg of input.legs) {
        addDelta(deltas, leg.account_id, leg.direction === 'debit' ? { posted: 0, pendingDebits: leg.amount, pendingCredits: 0 } : { posted: 0, pendingDebits: 0, pendingCredits: leg.amount });
      }
      const id = this.deps.ids();
      const expiresAt = input.expires_at ? new Date(input.expires_at).toISOString() : null;
      const pending: Pending = {
        id,
        ledger_id: ledgerId,
        type: input.type,
        status: 'pending',
        reference_id: input.reference_id ?? null,
        metadata: input.metadata ?? {},
        legs: input.legs.map((leg) => legOut(leg, facts)),
        expires_at: expiresAt,
        transaction_id: null,
        created_at: now.toISOString(),
        resolved_at: null,
      };
      const plan = this.plan(ledgerId, undefined, now);
      plan.items.push({
        Put: {
          TableName: this.deps.table,
          Item: { ...ledgerKeys.pending(id), entity: 'pending', ...pending, ...(expiresAt ? ledgerKeys.openPendingIndex(id, expiresAt) : {}) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      plan.roles.push({ kind: 'record' });
      plan.addAccounts(ledgerId, deltas, { requireActive: true });
      return { ...plan.build(), status: 201, body: pending };
    });
  }

  /** Releases a reservation. Refuses: pending_not_found, conflict (already posted, voided or expired). */
  async voidPending(consumerId: string, ledgerId: string, pendingId: string, idem: IdempotencyContext | undefined, outcome: 'voided' | 'expired' = 'voided'): Promise<Outcome> {
    await this.ledgerOf(consumerId, ledgerId);
    return this.idempotent(idem, async (now) => {
      const pending = await this.openPending(ledgerId, pendingId, now, { allowExpired: true });
      const deltas = new Map<string, AccountDelta>();
      for (const leg of pending.legs) {
        addDelta(deltas, leg.account_id, leg.direction === 'debit' ? { posted: 0, pendingDebits: -leg.amount, pendingCredits: 0 } : { posted: 0, pendingDebits: 0, pendingCredits: -leg.amount });
      }
      const plan = this.plan(ledgerId, undefined, now);
      plan.resolvePending(pendingId, outcome, now, null);
      // Releasing a reservation moves no money, so it is allowed on frozen and closed accounts too.
      plan.addAccounts(ledgerId, deltas, { requireActive: false });
      const resolved: Pending = { ...pending, status: outcome, resolved_at: now.toISOString() };
      return { ...plan.build(), status: 200, body: resolved };
    });
  }

  /**
   * Posts the mirror of a transaction, linked both ways. Refuses: transaction_not_found,
   * conflict (already reversed), invalid (a reversal, or part of an exchange group),
   * period_closed, and the account refusals of `post`.
   */
  async reverse(consumerId: string, ledgerId: string, transactionId: string, input: { effective_at?: string; metadata?: Record<string, string> } | undefined, idem: IdempotencyContext): Promise<Outcome> {
    await this.ledgerOf(consumerId, ledgerId);
    return this.idempotent(idem, async (now) => {
      const original = await this.getTransaction(consumerId, ledgerId, transactionId);
      if (original.reversed_by) throw new AppError('conflict', `Transaction ${transactionId} was already reversed by ${original.reversed_by}.`);
      if (original.reverses_txn_id) throw new AppError('invalid', 'A reversal cannot itself be reversed; post a new transaction instead.');
      if (original.exchange_id) throw new AppError('invalid', 'A transaction in an exchange group cannot be reversed on its own.');
      const effectiveAt = this.effectiveAt(input?.effective_at, now);
      const legs: LegInput[] = original.legs.map((leg) => ({ account_id: leg.account_id, direction: leg.direction === 'debit' ? 'credit' : 'debit', amount: leg.amount, commodity: leg.commodity }));
      const facts = await this.accountsOf(ledgerId, legs.map((l) => l.account_id));
      const deltas = new Map<string, AccountDelta>();
      for (const leg of legs) addDelta(deltas, leg.account_id, { posted: leg.direction === 'credit' ? leg.amount : -leg.amount, pendingDebits: 0, pendingCredits: 0 });
      const reversal = this.newTransaction(ledgerId, { type: original.type, metadata: input?.metadata ?? original.metadata, reference_id: original.reference_id ?? undefined }, legs, facts, effectiveAt, now, { exchange: false, pendingId: null, reverses: transactionId });
      const plan = this.plan(ledgerId, effectiveAt, now);
      plan.addTransaction(reversal);
      plan.items.push({
        Update: {
          TableName: this.deps.table,
          Key: ledgerKeys.transaction(transactionId),
          UpdateExpression: 'SET reversed_by = :by',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(reversed_by)',
          ExpressionAttributeValues: { ':by': reversal.id },
        },
      });
      plan.roles.push({ kind: 'original' });
      plan.addAccounts(ledgerId, deltas, { requireActive: true });
      return {
        ...plan.build(),
        status: 201,
        body: reversal,
        diagnose: (failure) => (failure.role.kind === 'original' ? new AppError('conflict', `Transaction ${transactionId} was already reversed.`) : undefined),
      };
    });
  }

  /** Voids every open pending whose expiry has passed; returns how many it expired. */
  async expirePendings(): Promise<number> {
    const now = this.deps.clock.now();
    let expired = 0;
    const due = dueKeys(this.deps.client, this.deps.table, {
      index: 'gsi2',
      shards: PENDING_INDEX_SHARDS,
      partitionOf: ledgerKeys.openPendingShard,
      before: `${now.toISOString()}#~`,
    });
    for await (const key of due) {
      const pending = await this.getItem({ pk: key.pk, sk: key.sk });
      if (!pending || pending.status !== 'pending') continue;
      const ledger = await this.ledgerOfAnyConsumer(String(pending.ledger_id));
      try {
        await this.voidPending(ledger.consumer_id, ledger.id, String(pending.id), undefined, 'expired');
        expired += 1;
      } catch (error) {
        // Posted or voided between the query and now: nothing left to expire.
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      }
    }
    return expired;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /** Refuses: transaction_not_found (also for another ledger's or consumer's transaction). */
  async getTransaction(consumerId: string, ledgerId: string, transactionId: string): Promise<Transaction> {
    await this.ledgerOf(consumerId, ledgerId);
    const item = await this.getItem(ledgerKeys.transaction(transactionId));
    if (!item || item.ledger_id !== ledgerId) throw new AppError('transaction_not_found', `No transaction ${transactionId} in this ledger.`);
    return toTransaction(item);
  }

  async getPending(consumerId: string, ledgerId: string, pendingId: string): Promise<Pending> {
    await this.ledgerOf(consumerId, ledgerId);
    const item = await this.getItem(ledgerKeys.pending(pendingId));
    if (!item || item.ledger_id !== ledgerId) throw new AppError('pending_not_found', `No pending posting ${pendingId} in this ledger.`);
    return toPending(item);
  }

  /** Transactions newest first, optionally of one type. */
  async listTransactions(consumerId: string, ledgerId: string, options: { cursor?: string; limit: number; type?: string }): Promise<{ data: Transaction[]; next_cursor: string | null }> {
    await this.ledgerOf(consumerId, ledgerId);
    const page = await this.queryPage(
      {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': ledgerKeys.transactionsOfLedger(ledgerId), ...(options.type ? { ':type': options.type } : {}) },
        ...(options.type ? { FilterExpression: '#type = :type', ExpressionAttributeNames: { '#type': 'type' } } : {}),
        ScanIndexForward: false,
      },
      options.cursor,
      options.limit,
    );
    return { data: page.items.map(toTransaction), next_cursor: page.next };
  }

  /**
   * The consumer's feed of committed transactions, oldest first from a cursor. Transactions younger
   * than the settle window are held back: ids are taken before commit, so a slow commit could
   * otherwise appear behind a cursor a reader already passed. Refuses: event_feed_blocked.
   */
  async feed(consumerId: string, ledgerId: string, cursor: string | undefined, limit: number): Promise<{ data: { id: string; type: 'transaction.posted'; created_at: string; transaction: Transaction }[]; next_cursor: string | null }> {
    await this.ledgerOf(consumerId, ledgerId);
    const consumer = await this.getItem(consumerKeys.consumer(consumerId));
    if (consumer?.feed_blocked === true) throw new AppError('event_feed_blocked', 'An operator has blocked this consumer\'s event feed.');
    if (cursor !== undefined && !/^[0-9a-f-]{36}$/.test(cursor)) throw new AppError('invalid', 'cursor must be the id of the last event read.');
    const settledBefore = uuidFloor(this.deps.clock.now().getTime() - (this.deps.feedSettleMs ?? 2_000));
    if (cursor !== undefined && `${cursor}!` >= settledBefore) return { data: [], next_cursor: cursor };
    const result = await this.deps.client.send(
      new QueryCommand({
        TableName: this.deps.table,
        IndexName: 'gsi1',
        KeyConditionExpression: cursor ? 'gsi1pk = :pk AND gsi1sk BETWEEN :after AND :before' : 'gsi1pk = :pk AND gsi1sk < :before',
        ExpressionAttributeValues: { ':pk': ledgerKeys.transactionsOfLedger(ledgerId), ':before': settledBefore, ...(cursor ? { ':after': `${cursor}!` } : {}) },
        ScanIndexForward: true,
        Limit: limit,
      }),
    );
    const data = (result.Items ?? []).map((item) => {
      const transaction = toTransaction(item);
      return { id: transaction.id, type: 'transaction.posted' as const, created_at: transaction.created_at, transaction };
    });
    return { data, next_cursor: data.length > 0 ? data[data.length - 1]!.id : (cursor ?? null) };
  }

  /** Balances by owner type, purpose and commodity, and whether each commodity nets to zero. */
  async rollup(consumerId: string, ledgerId: string) {
    await this.ledgerOf(consumerId, ledgerId);
    const accounts = await this.allAccounts(ledgerId);
    const rows = new Map<string, { owner_type: string; purpose: string; commodity: string; balance: number; pending_debits: number; pending_credits: number; accounts: number }>();
    const totals = new Map<string, number>();
    for (const account of accounts) {
      const key = `${account.owner_type}\u0000${account.purpose}\u0000${account.commodity}`;
      const row = rows.get(key) ?? { owner_type: account.owner_type, purpose: account.purpose, commodity: account.commodity, balance: 0, pending_debits: 0, pending_credits: 0, accounts: 0 };
      row.balance += account.balance.posted;
      row.pending_debits += account.balance.pending_debits;
      row.pending_credits += account.balance.pending_credits;
      row.accounts += 1;
      rows.set(key, row);
      totals.set(account.commodity, (totals.get(account.commodity) ?? 0) + account.balance.posted);
    }
    const commodities = [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([commodity, total]) => ({ commodity, total, balanced: total === 0 }));
    return {
      ledger_id: ledgerId,
      rows: [...rows.values()].sort((a, b) => `${a.owner_type}/${a.purpose}/${a.commodity}`.localeCompare(`${b.owner_type}/${b.purpose}/${b.commodity}`)),
      commodities,
      balanced: commodities.every((c) => c.balanced),
    };
  }

  /** The stored answer of an idempotency key. Refuses: idempotency_key_not_found. */
  async idempotencyRecord(consumerId: string, ledgerId: string, key: string) {
    await this.ledgerOf(consumerId, ledgerId);
    const now = this.deps.clock.now();
    const record = await this.idempotency.read(ledgerId, key, now);
    if (!record) throw new AppError('idempotency_key_not_found', 'No live record for this Idempotency-Key.');
    return {
      key: record.key,
      operation: record.operation,
      status_code: record.status_code,
      response: JSON.parse(record.body) as unknown,
      created_at: record.created_at,
      expires_at: new Date(record.expires_at_epoch * 1000).toISOString(),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  private async idempotent(
    idem: IdempotencyContext | undefined,
    build: (now: Date) => Promise<{ items: TransactItem[]; roles: Role[]; status: number; body: unknown; diagnose?: (failure: { role: Role; item?: Record<string, unknown> }) => AppError | undefined }>,
  ): Promise<Outcome> {
    const now = this.deps.clock.now();
    try {
      const built = await build(now);
      const body = JSON.stringify(built.body);
      const items = idem ? [this.idempotency.recordItem(idem, built.status, body, now), ...built.items] : built.items;
      const roles: Role[] = idem ? [{ kind: 'idempotency' }, ...built.roles] : built.roles;
      try {
        await transact(this.deps, items);
      } catch (error) {
        if (error instanceof TransactionTooLarge) {
          throw new AppError('invalid', `This operation needs ${error.size} writes; one transaction holds at most ${MAX_TRANSACT_ITEMS}.`);
        }
        if (!(error instanceof ConditionsFailed)) throw error;
        throw this.diagnose(error, roles, built.diagnose);
      }
      return { status: built.status, body, replayed: false };
    } catch (error) {
      if (!idem) throw error;
      // A refusal may be this key's own earlier success seen from after it (the pending it posted
      // is no longer open): an existing record answers first.
      const replay = await this.idempotency.replay(idem, now);
      if (replay) return replay;
      if (error instanceof AppError && REMEMBERED_REFUSALS.has(error.code)) return this.idempotency.rememberRefusal(idem, error, now);
      throw error;
    }
  }

  private diagnose(
    error: ConditionsFailed,
    roles: Role[],
    custom?: (failure: { role: Role; item?: Record<string, unknown> }) => AppError | undefined,
  ): Error {
    // Report the most specific failure: the record of a concurrent twin first, then the rest.
    const failures = error.failures.map((f) => ({ role: roles[f.index]!, item: f.item }));
    const twin = failures.find((f) => f.role.kind === 'idempotency');
    if (twin) return new AppError('idempotency_in_flight', 'A request with this Idempotency-Key completed concurrently.');
    for (const failure of failures) {
      const mapped = custom?.(failure);
      if (mapped) return mapped;
      const { role, item } = failure;
      switch (role.kind) {
        case 'ledger':
          return new AppError('period_closed', 'The effective date falls in a closed period.');
        case 'claim':
          return new AppError('limit_exceeded', `The limit claim ${role.key} would pass its max.`);
        case 'pending':
          return new AppError('conflict', 'The pending posting is no longer open.');
        case 'account':
          return accountRefusal(role, item);
        default:
          break;
      }
    }
    return error;
  }

  private plan(ledgerId: string, effectiveAt: string | undefined, now: Date) {
    const table = this.deps.table;
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
    return {
      items,
      roles,
      addTransaction(transaction: Transaction) {
        items.push({
          Put: {
            TableName: table,
            // reversed_by is absent until a reversal sets it: the reversal's condition tests for that.
            Item: { ...ledgerKeys.transaction(transaction.id), entity: 'transaction', ...transaction, reversed_by: undefined, gsi1pk: ledgerKeys.transactionsOfLedger(ledgerId), gsi1sk: transaction.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        });
        roles.push({ kind: 'record' });
        transaction.legs.forEach((leg, index) => {
          items.push({
            Put: {
              TableName: table,
              Item: {
                ...ledgerKeys.entry(leg.account_id, transaction.id, index),
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
      ) {
        for (const requirement of [...(checks.versionIs ?? []), ...(checks.minAvailableAfter ?? [])]) {
          if (!deltas.has(requirement.account_id)) throw new AppError('invalid', `Precondition on account ${requirement.account_id}, which the posting does not touch.`);
        }
        for (const [accountId, delta] of deltas) {
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
          roles.push({ kind: 'account', accountId, version, minAvailable, delta });
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

  private newTransaction(
    ledgerId: string,
    input: { type: string; metadata?: Record<string, string>; reference_id?: string },
    legs: LegInput[],
    facts: Map<string, AccountFacts>,
    effectiveAt: string,
    now: Date,
    links: { exchange: boolean; pendingId: string | null; reverses?: string },
  ): Transaction {
    return {
      id: this.deps.ids(),
      ledger_id: ledgerId,
      type: input.type,
      status: 'posted',
      reference_id: input.reference_id ?? null,
      metadata: input.metadata ?? {},
      exchange_id: links.exchange ? this.deps.ids() : null,
      reverses_txn_id: links.reverses ?? null,
      reversed_by: null,
      pending_id: links.pendingId,
      legs: legs.map((leg) => legOut(leg, facts)),
      effective_at: effectiveAt,
      created_at: now.toISOString(),
    };
  }

  private effectiveAt(requested: string | undefined, now: Date): string {
    if (!requested) return now.toISOString();
    const at = new Date(requested);
    if (at.getTime() > now.getTime() + MAX_FUTURE_EFFECTIVE_MS) throw new AppError('invalid', 'effective_at may not be in the future.');
    return at.toISOString();
  }

  private async openPending(ledgerId: string, pendingId: string, now: Date, options: { allowExpired?: boolean } = {}): Promise<Pending> {
    const item = await this.getItem(ledgerKeys.pending(pendingId));
    if (!item || item.ledger_id !== ledgerId) throw new AppError('pending_not_found', `No pending posting ${pendingId} in this ledger.`);
    const pending = toPending(item);
    if (pending.status !== 'pending') throw new AppError('conflict', `The pending posting is already ${pending.status}.`);
    if (!options.allowExpired && pending.expires_at && new Date(pending.expires_at).getTime() <= now.getTime()) {
      throw new AppError('conflict', 'The pending posting has expired.');
    }
    return pending;
  }

  /** The ledger, if this consumer owns it. Ownership never changes, so it is cached. */
  private async ledgerOf(consumerId: string, ledgerId: string): Promise<LedgerFacts> {
    const facts = await this.ledgerOfAnyConsumer(ledgerId).catch((error: unknown) => {
      if (error instanceof AppError) throw new AppError('ledger_not_found', `No ledger ${ledgerId}.`);
      throw error;
    });
    if (facts.consumer_id !== consumerId) throw new AppError('ledger_not_found', `No ledger ${ledgerId}.`);
    return facts;
  }

  private async ledgerOfAnyConsumer(ledgerId: string): Promise<LedgerFacts> {
    const cached = this.ledgerFacts.get(ledgerId);
    if (cached) return cached;
    const item = await this.getItem(ledgerKeys.ledger(ledgerId));
    if (!item) throw new AppError('ledger_not_found', `No ledger ${ledgerId}.`);
    const facts = { id: ledgerId, consumer_id: String(item.consumer_id) };
    remember(this.ledgerFacts, ledgerId, facts);
    return facts;
  }

  /** Immutable facts of the accounts, from cache or one consistent BatchGet. Refuses: account_not_found. */
  private async accountsOf(ledgerId: string, accountIds: string[]): Promise<Map<string, AccountFacts>> {
    const unique = [...new Set(accountIds)];
    const missing = unique.filter((id) => !this.accountFacts.has(id));
    for (let i = 0; i < missing.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = missing.slice(i, i + 100).map((id) => ledgerKeys.account(id));
      while (keys && keys.length > 0) {
        const result: BatchGetCommandOutput = await this.deps.client.send(
          new BatchGetCommand({
            RequestItems: { [this.deps.table]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'id, ledger_id, owner_type, owner_id, purpose, commodity' } },
          }),
        );
        for (const item of result.Responses?.[this.deps.table] ?? []) {
          remember(this.accountFacts, String(item.id), {
            id: String(item.id),
            ledger_id: String(item.ledger_id),
            owner_type: String(item.owner_type),
            owner_id: String(item.owner_id),
            purpose: String(item.purpose),
            commodity: String(item.commodity),
          });
        }
        keys = result.UnprocessedKeys?.[this.deps.table]?.Keys;
      }
    }
    const facts = new Map<string, AccountFacts>();
    for (const id of unique) {
      const fact = this.accountFacts.get(id);
      if (!fact || fact.ledger_id !== ledgerId) throw new AppError('account_not_found', `No account ${id} in this ledger.`);
      facts.set(id, fact);
    }
    return facts;
  }

  private async allAccounts(ledgerId: string): Promise<Account[]> {
    const keys: Record<string, unknown>[] = [];
    for (let shard = 0; shard < ACCOUNT_INDEX_SHARDS; shard += 1) {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await this.deps.client.send(
          new QueryCommand({ TableName: this.deps.table, IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': ledgerKeys.accountIndexShard(ledgerId, shard) }, ExclusiveStartKey: start }),
        );
        for (const item of page.Items ?? []) keys.push({ pk: item.pk, sk: item.sk });
        start = page.LastEvaluatedKey;
      } while (start);
    }
    const accounts: Account[] = [];
    for (let i = 0; i < keys.length; i += 100) {
      let batch: Record<string, unknown>[] | undefined = keys.slice(i, i + 100);
      while (batch && batch.length > 0) {
        const result: BatchGetCommandOutput = await this.deps.client.send(new BatchGetCommand({ RequestItems: { [this.deps.table]: { Keys: batch, ConsistentRead: true } } }));
        accounts.push(...(result.Responses?.[this.deps.table] ?? []).map(toAccount));
        batch = result.UnprocessedKeys?.[this.deps.table]?.Keys;
      }
    }
    return accounts;
  }

  private async getItem(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    const result = await this.deps.client.send(new GetCommand({ TableName: this.deps.table, Key: key, ConsistentRead: true }));
    return result.Item;
  }

  private async queryPage(input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>, cursor: string | undefined, limit: number) {
    const result = await this.deps.client.send(new QueryCommand({ ...input, TableName: this.deps.table, Limit: limit, ExclusiveStartKey: cursor ? decodeCursor(cursor, 'invalid', Object.keys(input.IndexName ? { pk: 1, sk: 1, [`${input.IndexName}pk`]: 1, [`${input.IndexName}sk`]: 1 } : { pk: 1, sk: 1 })) : undefined }));
    return { items: result.Items ?? [], next: result.LastEvaluatedKey ? encodeCursor(result.LastEvaluatedKey) : null };
  }
}

function accountRefusal(role: Extract<Role, { kind: 'account' }>, item: Record<string, unknown> | undefined): AppError {
  if (!item) return new AppError('account_not_found', `No account ${role.accountId} in this ledger.`);
  if (item.status === 'frozen') return new AppError('account_frozen', `Account ${role.accountId} is frozen.`);
  if (item.status === 'closed') return new AppError('account_closed', `Account ${role.accountId} is closed.`);
  if (role.version !== undefined && Number(item.version) !== role.version) {
    return new AppError('precondition_failed', `Account ${role.accountId} is at version ${String(item.version)}, not ${role.version}.`);
  }
  const availableDelta = role.delta.posted - role.delta.pendingDebits;
  if (role.minAvailable !== undefined && Number(item.available) + availableDelta < role.minAvailable) {
    return new AppError('precondition_failed', `Account ${role.accountId} would keep less than ${role.minAvailable} available.`);
  }
  return new AppError('insufficient_funds', `Account ${role.accountId} would go below its floor.`);
}

/** Each commodity's debits equal its credits. Returns the commodities. Refuses: unbalanced. */
export function assertBalanced(legs: readonly LegInput[]): Set<string> {
  const net = new Map<string, number>();
  for (const leg of legs) net.set(leg.commodity, (net.get(leg.commodity) ?? 0) + (leg.direction === 'credit' ? leg.amount : -leg.amount));
  const off = [...net].filter(([, total]) => total !== 0);
  if (off.length > 0) {
    throw new AppError('unbalanced', `Debits and credits differ: ${off.map(([c, t]) => `${c} by ${Math.abs(t)}`).join(', ')}.`);
  }
  return new Set(net.keys());
}

function assertCommodities(legs: readonly LegInput[], facts: Map<string, AccountFacts>): void {
  for (const leg of legs) {
    const commodity = facts.get(leg.account_id)!.commodity;
    if (commodity !== leg.commodity) throw new AppError('invalid', `Account ${leg.account_id} holds ${commodity}, not ${leg.commodity}.`);
  }
}

/** The posting's debits per account fit in what the pending reserved there. Refuses: post_exceeds_pending. */
function assertWithinPending(legs: readonly LegInput[], pending: Pending): void {
  const reserved = new Map<string, number>();
  for (const leg of pending.legs) if (leg.direction === 'debit') reserved.set(leg.account_id, (reserved.get(leg.account_id) ?? 0) + leg.amount);
  const debited = new Map<string, number>();
  for (const leg of legs) if (leg.direction === 'debit') debited.set(leg.account_id, (debited.get(leg.account_id) ?? 0) + leg.amount);
  for (const [accountId, amount] of debited) {
    if (amount > (reserved.get(accountId) ?? 0)) {
      throw new AppError('post_exceeds_pending', `Account ${accountId} is debited ${amount}, more than the ${reserved.get(accountId) ?? 0} reserved.`);
    }
  }
}

function addDelta(deltas: Map<string, AccountDelta>, accountId: string, delta: AccountDelta): void {
  const current = deltas.get(accountId) ?? { posted: 0, pendingDebits: 0, pendingCredits: 0 };
  deltas.set(accountId, { posted: current.posted + delta.posted, pendingDebits: current.pendingDebits + delta.pendingDebits, pendingCredits: current.pendingCredits + delta.pendingCredits });
}

function legOut(leg: LegInput, facts: Map<string, AccountFacts>): LegOutput {
  const fact = facts.get(leg.account_id)!;
  return { account_id: leg.account_id, owner_type: fact.owner_type, owner_id: fact.owner_id, purpose: fact.purpose, direction: leg.direction, amount: leg.amount, commodity: leg.commodity };
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= FACTS_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
}

/** The smallest UUIDv7 of a millisecond: ids below it were taken before that time. */
function uuidFloor(ms: number): string {
  const hex = Math.max(0, ms).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-0000-000000000000`;
}

const toLedger = (item: Record<string, unknown>): Ledger => ({
  id: String(item.id),
  name: String(item.name),
  commodity: String(item.commodity),
  metadata: (item.metadata as Record<string, string>) ?? {},
  closed_through: (item.closed_through as string | undefined) ?? null,
  created_at: String(item.created_at),
});

const toAccount = (item: Record<string, unknown>): Account => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  owner_type: String(item.owner_type),
  owner_id: String(item.owner_id),
  purpose: String(item.purpose),
  commodity: String(item.commodity),
  floor: item.unbounded ? null : Number(item.floor),
  status: item.status as Account['status'],
  balance: {
    posted: Number(item.posted),
    pending_debits: Number(item.pending_debits),
    pending_credits: Number(item.pending_credits),
    available: Number(item.available),
  },
  version: Number(item.version),
  metadata: (item.metadata as Record<string, string>) ?? {},
  created_at: String(item.created_at),
  updated_at: String(item.updated_at),
});

const toEntry = (item: Record<string, unknown>): Entry => ({
  transaction_id: String(item.transaction_id),
  account_id: String(item.account_id),
  type: String(item.type),
  direction: item.direction as Entry['direction'],
  amount: Number(item.amount),
  commodity: String(item.commodity),
  effective_at: String(item.effective_at),
  created_at: String(item.created_at),
});

const toTransaction = (item: Record<string, unknown>): Transaction => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  type: String(item.type),
  status: 'posted',
  reference_id: (item.reference_id as string | null) ?? null,
  metadata: (item.metadata as Record<string, string>) ?? {},
  exchange_id: (item.exchange_id as string | null) ?? null,
  reverses_txn_id: (item.reverses_txn_id as string | null) ?? null,
  reversed_by: (item.reversed_by as string | null) ?? null,
  pending_id: (item.pending_id as string | null) ?? null,
  legs: item.legs as LegOutput[],
  effective_at: String(item.effective_at),
  created_at: String(item.created_at),
});

const toPending = (item: Record<string, unknown>): Pending => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  type: String(item.type),
  status: item.status as Pending['status'],
  reference_id: (item.reference_id as string | null) ?? null,
  metadata: (item.metadata as Record<string, string>) ?? {},
  legs: item.legs as LegOutput[],
  expires_at: (item.expires_at as string | null) ?? null,
  transaction_id: (item.transaction_id as string | null) ?? null,
  created_at: String(item.created_at),
  resolved_at: (item.resolved_at as string | null) ?? null,
});
