import { createHash } from 'node:crypto';
import { dueEntries } from '../aws/due-keys';
import { ConditionsFailed, getItem, getItems, isConditionalCheckFailed, putItem, putItems, transact, updateAction, updateItem, type Item, type Update } from '../aws/store';
import { derivedUuidv7 } from '../kernel/ids';
import type { TransactItem } from '../aws/dynamodb';
import type { Principal } from '../http/principal';
import { AppError, problemBody, type ErrorCode } from '../kernel/errors';
import type { Outcome } from '../http/outcome';
import { canonicalJson } from '../http/json';
import { LedgerRefusal } from '../ledger-client/client';
import type { WalletDeps } from './deps';

/**
 * Money-moving operations as sagas of idempotent steps (DESIGN.md "Money moves"):
 *   1. remember the request under its Idempotency-Key (state `started`, with an operation id);
 *   2. post to the ledger with a key derived from the operation id, so any retry replays the
 *      same posting instead of making a second one;
 *   3. commit the wallet's record, its outbox event and the key's final answer, conditioned on
 *      the key still being `started`: in ONE TransactWriteItems; or, for an operation that only
 *      creates items of its own (`creates`), those items in one batch, which is the answer: a
 *      retry finds them all and answers from them.
 * A crash between 2 and 3 leaves the key `started` and its items (some of them) missing: the
 * client's retry resumes it, and the sweeper finishes what nobody retried. Operations register
 * themselves by name so the sweeper can resume any of them from the stored request.
 */

export interface OperationPlan {
  /** Step 2: the ledger call(s), idempotent under keys derived from `ledgerKey`. */
  post(ledgerKey: string): Promise<unknown>;
  /** Step 3: the wallet's writes for what the ledger did, and the answer to the client. */
  commit(posted: unknown): Promise<{ items: TransactItem[]; status: number; body: unknown }>;
  /**
   * The commit's writes are conditioned on versions it read (stock counts): when one went stale
   * before the transaction, build the commit again from fresh reads instead of answering
   * idempotency_in_flight. The ledger step is not repeated.
   */
  freshCommit?: boolean;
}

/**
 * An operation whose commit only creates items keyed by the operation (its record under the
 * operation's id, its events under `operationEvent` ids), the same bytes on every try: they are
 * written in one BatchWriteItem, and no answer is written after them. They ARE the answer: a
 * retry of the key reads them back (`keys`) and, when every one is there, answers from them
 * (`answer`), byte for byte what the first try answered; when one is missing (a crash between
 * the ledger and the batch, or inside it) the retry or the sweeper writes them all again (an
 * item already there is this operation's, and writing it again changes nothing). One request and
 * half the write units of a transaction with the answer, and one request fewer than writing the
 * answer after the batch. A refusal has no items: its answer is written, as any operation's.
 * Without this, an operation commits atomically: its items and the key's answer in ONE
 * TransactWriteItems (needed whenever an item changes state that was there before: a status, a count).
 */
export interface CreatesCommit {
  /** The key of every item a success creates, in a fixed order, from the operation alone (before any ledger call). */
  keys(operation: { tenantId: string; operationId: string; startedAt: string }): { pk: string; sk: string }[];
  /** The success's answer from those items as stored (in `keys` order): the first try answers through it too. */
  answer(items: Item[]): { status: number; body: unknown };
}

export interface OperationOptions {
  creates?: CreatesCommit;
}

/** How many times a fresh-commit operation rebuilds its commit after a stale read. */
const FRESH_COMMIT_ATTEMPTS = 20;

export interface OperationContext {
  runtime: WalletDeps;
  tenantId: string;
  /** Stable across retries of one request: ids of the records it creates derive from it. */
  operationId: string;
  principal: StoredPrincipal;
  request: unknown;
  requestId: string;
  /** When the operation was first requested: the same for every retry and for the sweeper. */
  startedAt: string;
  /**
   * What the caller fixed when the operation started (runOperation's `pinned`: a quote, a fee, a
   * limit window), stored with the key and handed back unchanged on every resume, so the ledger
   * posting a retry sends is byte for byte the first one even if a fee plan changed in between.
   */
  pinned: unknown;
}

export type StoredPrincipal = Pick<Principal, 'kind' | 'id' | 'tenantId' | 'userId'>;

/** The principal as the key record keeps it: its tenant is the record's own (the key's partition). */
type KeptPrincipal = Pick<Principal, 'kind' | 'id' | 'userId'>;

export type OperationDefinition = (context: OperationContext) => Promise<OperationPlan>;

interface RegisteredOperation {
  definition: OperationDefinition;
  options: OperationOptions;
}

const registry = new Map<string, RegisteredOperation>();

/** The names of the operations this process has loaded. */
export const registeredOperations = (): string[] => [...registry.keys()].sort();

/** Registers an operation by name (module scope of the service that defines it). */
export function defineOperation(name: string, definition: OperationDefinition, options: OperationOptions = {}): string {
  registry.set(name, { definition, options });
  return name;
}

const loaders = new Map<string, () => Promise<unknown>>();

/**
 * Where to find operations this process has not loaded: importing the module defines them. The
 * sweeper names every operation this way, so its cold start loads none of them and a sweep loads
 * only those it finds unfinished.
 */
export function operationLoaders(entries: Record<string, () => Promise<unknown>>): void {
  for (const [name, load] of Object.entries(entries)) loaders.set(name, load);
}

/** The operations this process can load on demand. */
export const loadableOperations = (): string[] => [...loaders.keys()].sort();

/** The operation, loading its module if this process has not yet (undefined when none defines it). */
async function operationNamed(name: string): Promise<RegisteredOperation | undefined> {
  const known = registry.get(name);
  if (known) return known;
  await loaders.get(name)?.();
  return registry.get(name);
}

/** The operation's definition, loading its module if this process has not yet (undefined when none defines it). */
export async function operationDefinition(name: string): Promise<OperationDefinition | undefined> {
  return (await operationNamed(name))?.definition;
}

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;
/** When a key's record expires (its TTL attribute): the retention after the operation started. */
const keyExpiry = (createdAt: string): number => Math.floor(Date.parse(createdAt) / 1000) + IDEMPOTENCY_RETENTION_SECONDS;
/** How long a `started` key waits before the sweeper takes it over from a possibly live request. */
export const SWEEP_AFTER_MS = 30_000;
/**
 * A first try whose key took longer than this to be written posts nothing: the sweeper may already
 * have passed its start (it walks the index up to SWEEP_AFTER_MS ago), so the retry, which
 * re-indexes the key, goes on from there.
 */
export const LATE_START_MS = 10_000;
/**
 * How far behind its last walk the sweeper starts the next: an entry that shows in the index late
 * (a slow write, the index's lag) is still walked up to SWEEP_AFTER_MS - LATE_START_MS +
 * SWEEP_RESCAN_MS (30 s) after its instant. Each key is walked about 1.2 times at one walk a minute.
 */
const SWEEP_RESCAN_MS = 10_000;
const SWEEP_SHARDS = 4;

export const operationKeys = {
  record: (tenantId: string, key: string) => ({ pk: `IDEM#${tenantId}#${key}`, sk: 'IDEM' }),
  pendingIndex: (operationId: string, startedAt: string) => ({
    gsi3pk: `SAGA_STARTED#${parseInt(operationId.slice(-2), 16) % SWEEP_SHARDS}`,
    gsi3sk: `${startedAt}#${operationId}`,
  }),
  pendingShard: (shard: number) => `SAGA_STARTED#${shard}`,
  /** How far the sweeper has walked a shard of the index. */
  sweptThrough: (shard: number) => ({ pk: `SAGA_SWEPT#${shard}`, sk: 'SAGA_SWEPT' }),
  /** The tenant and the key `record` put in a partition key (the tenant id holds no `#`; the key may hold anything). */
  ofRecord: (pk: string): { tenantId: string; key: string } => {
    const rest = pk.slice('IDEM#'.length);
    const split = rest.indexOf('#');
    return { tenantId: rest.slice(0, split), key: rest.slice(split + 1) };
  },
};

/**
 * The id and instant of an operation's `n`th event: the same on every try, so a `creates` commit
 * writes the event once whoever finishes the operation. The instant is the operation's start.
 */
export const operationEvent = (context: Pick<OperationContext, 'operationId' | 'startedAt'>, n = 0): { id: string; at: Date } => {
  const at = new Date(context.startedAt);
  return { id: derivedUuidv7(at.getTime(), `${context.operationId}:event:${n}`), at };
};

/** The ledger key of an operation: the same for every retry, distinct across tenants. */
export const ledgerKeyOf = (tenantId: string, operationId: string, step = 'post') => `wallet:${tenantId}:${operationId}:${step}`;



/** Hooks for tests that prove crash safety; production code never sets them. */
export interface SagaFaults {
  afterLedger?: () => void;
  /** After a `creates` commit's items were written, before the answer reaches the client. */
  afterCreates?: () => void;
}

/**
 * The key's record. What only a resume needs (request, pinned, principal, request id) is removed
 * when an answer is written, and nothing the key itself says (tenant, key) is stored twice. A
 * `creates` success writes no answer: its record stays `started`, its items answer for it.
 */
interface StoredRecord {
  operation: string;
  operation_id: string;
  /** sha256 of the operation and the request's canonical JSON, base64url (hex in records written before). */
  fingerprint: string;
  state: 'started' | 'completed';
  request?: string;
  /** JSON of runOperation's `pinned`, when given. */
  pinned?: string;
  principal?: KeptPrincipal;
  request_id?: string;
  status_code?: number;
  body?: string;
  created_at: string;
}

/** A started record has everything a resume needs. */
type StartedRecord = StoredRecord & Required<Pick<StoredRecord, 'request' | 'principal' | 'request_id'>>;

/** A completed record has the answer and nothing only a resume needs. */
type CompletedRecord = Omit<StoredRecord, 'request' | 'pinned' | 'principal' | 'request_id'> & Required<Pick<StoredRecord, 'status_code' | 'body'>>;

/**
 * Runs a money operation once per Idempotency-Key. Refuses: idempotency_key_reuse, and whatever
 * the operation refuses (remembered under the key, like a success).
 * `pinned` is stored with the key but is not part of the request's fingerprint: values the server
 * derived (a fee, a limit window) that every resume must reuse; a later request with the same key
 * gets the first request's pinned values, never its own.
 */
export async function runOperation(
  runtime: WalletDeps,
  input: { operation: string; tenantId: string; idempotencyKey: string; request: unknown; principal: Principal; requestId: string; pinned?: unknown },
  faults: SagaFaults = {},
): Promise<Outcome> {
  const now = runtime.clock.now();
  const digest = createHash('sha256').update(input.operation).update('\n').update(canonicalJson(input.request)).digest();
  const fingerprint = digest.toString('base64url');
  const key = operationKeys.record(input.tenantId, input.idempotencyKey);
  const operationId = runtime.ids();
  const principal: KeptPrincipal = { kind: input.principal.kind, id: input.principal.id, ...(input.principal.userId === undefined ? {} : { userId: input.principal.userId }) };
  const record: StartedRecord = {
    operation: input.operation,
    operation_id: operationId,
    fingerprint,
    state: 'started',
    request: JSON.stringify(input.request),
    ...(input.pinned === undefined ? {} : { pinned: JSON.stringify(input.pinned) }),
    principal,
    request_id: input.requestId,
    created_at: now.toISOString(),
  };
  try {
    await putItem(
      runtime,
      { ...key, entity: 'idempotency', ...record, ...operationKeys.pendingIndex(operationId, record.created_at), expires_at_epoch: keyExpiry(record.created_at) },
      { condition: 'attribute_not_exists(pk) OR expires_at_epoch < :now', values: { ':now': Math.floor(now.getTime() / 1000) } },
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    return resumeExisting(runtime, input, digest, faults);
  }
  if (runtime.clock.now().getTime() - now.getTime() > LATE_START_MS) {
    throw new AppError('service_unavailable', 'The request was recorded too slowly to go on safely; retry it with the same Idempotency-Key.');
  }
  return resume(runtime, input.tenantId, input.idempotencyKey, record, faults);
}

/** A key already there: its answer, the answer its items give, or the operation taken over. */
async function resumeExisting(runtime: WalletDeps, input: { operation: string; tenantId: string; idempotencyKey: string }, digest: Buffer, faults: SagaFaults): Promise<Outcome> {
  const existing = await readRecord(runtime, input.tenantId, input.idempotencyKey);
  if (!existing) throw new AppError('idempotency_in_flight', 'Retry the request with the same Idempotency-Key.');
  const sameRequest = existing.fingerprint === digest.toString('base64url') || existing.fingerprint === digest.toString('hex');
  if (!sameRequest || existing.operation !== input.operation) {
    throw new AppError('idempotency_key_reuse', 'This Idempotency-Key was already used for a different request.');
  }
  if (existing.state === 'completed') return { status: existing.status_code!, body: existing.body!, replayed: true };
  const created = (await createdItems(runtime, [{ tenantId: input.tenantId, record: existing }], { consistent: true })).get(existing.operation_id);
  if (created) {
    const answer = created.creates.answer(created.items);
    return { status: answer.status, body: JSON.stringify(answer.body), replayed: true };
  }
  // Started but not finished (a crash, or a twin still running): take it over; every step is
  // idempotent. Indexed again first, at now: the sweeper may have walked past its start.
  await reindex(runtime, input.tenantId, input.idempotencyKey, existing.operation_id);
  return resume(runtime, input.tenantId, input.idempotencyKey, existing as StartedRecord, faults);
}

/**
 * Of started records of `creates` operations, those whose items are all there (the operation
 * finished), with the items, by operation id: one BatchGetItem for all (`keysOnly`: only whether
 * they are there, the items' keys). The others are absent: not finished, or not that kind of operation.
 */
async function createdItems(
  runtime: WalletDeps,
  records: { tenantId: string; record: StoredRecord }[],
  options: { consistent: boolean; keysOnly?: boolean },
): Promise<Map<string, { creates: CreatesCommit; items: Item[] }>> {
  const asked: { operationId: string; creates: CreatesCommit; keys: { pk: string; sk: string }[] }[] = [];
  for (const { tenantId, record } of records) {
    const creates = (await operationNamed(record.operation))?.options.creates;
    if (!creates || record.state !== 'started') continue;
    asked.push({ operationId: record.operation_id, creates, keys: creates.keys({ tenantId, operationId: record.operation_id, startedAt: record.created_at }) });
  }
  const finished = new Map<string, { creates: CreatesCommit; items: Item[] }>();
  if (asked.length === 0) return finished;
  const found = await getItems(runtime, asked.flatMap((entry) => entry.keys), { consistent: options.consistent, ...(options.keysOnly ? { projection: 'pk' } : {}) });
  let at = 0;
  for (const entry of asked) {
    const items = found.slice(at, (at += entry.keys.length));
    if (items.every((item) => item !== undefined)) finished.set(entry.operationId, { creates: entry.creates, items: items as Item[] });
  }
  return finished;
}

/** Moves a started key's sweep index entry to now, so that the sweeper's next walks see it. */
async function reindex(runtime: WalletDeps, tenantId: string, idempotencyKey: string, operationId: string): Promise<void> {
  const entry = operationKeys.pendingIndex(operationId, runtime.clock.now().toISOString());
  try {
    await updateItem(runtime, operationKeys.record(tenantId, idempotencyKey), {
      expression: 'SET gsi3pk = :pk, gsi3sk = :sk',
      condition: '#state = :started AND operation_id = :operation',
      names: { '#state': 'state' },
      values: { ':pk': entry.gsi3pk, ':sk': entry.gsi3sk, ':started': 'started', ':operation': operationId },
    });
  } catch (error) {
    // Answered meanwhile (by a twin): nothing left to sweep.
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

async function resume(runtime: WalletDeps, tenantId: string, idempotencyKey: string, record: StartedRecord, faults: SagaFaults): Promise<Outcome> {
  const operation = await operationNamed(record.operation);
  if (!operation) throw new Error(`unknown operation ${record.operation}`);
  const { definition, options } = operation;
  let plan: OperationPlan | undefined;
  let posted: unknown;
  const commitOnce = async (): Promise<{ items: TransactItem[]; status: number; body: unknown }> => {
    try {
      if (!plan) {
        plan = await definition({
          runtime,
          tenantId,
          operationId: record.operation_id,
          principal: { ...record.principal, tenantId },
          request: JSON.parse(record.request) as unknown,
          requestId: record.request_id,
          startedAt: record.created_at,
          pinned: record.pinned === undefined ? undefined : (JSON.parse(record.pinned) as unknown),
        });
        posted = await plan.post(ledgerKeyOf(tenantId, record.operation_id));
        faults.afterLedger?.();
      }
      return await plan.commit(posted);
    } catch (error) {
      const refusal = asRefusal(error);
      // Transient failures leave the key started, for a retry or the sweeper.
      if (!refusal) throw error instanceof LedgerRefusal && error.code === 'idempotency_in_flight' ? new AppError('idempotency_in_flight', 'Retry the request with the same Idempotency-Key.') : error;
      return { items: [], status: refusal.status, body: problemBody(refusal, record.request_id) };
    }
  };
  for (let attempt = 1; ; attempt += 1) {
    const result = await commitOnce();
    if (options.creates && result.items.length > 0) {
      // The items are the answer; the client gets what a retry will read back from them.
      const stored = await writeCreates(runtime, result.items, faults);
      return { status: result.status, body: JSON.stringify(options.creates.answer(stored).body), replayed: false };
    }
    const body = JSON.stringify(result.body);
    // The key's answer, written last (alone, or in the commit's transaction), while the key is
    // still this operation's and started; it leaves the sweep index and drops what only a resume needs.
    const key = operationKeys.record(tenantId, idempotencyKey);
    const stillStarted = { condition: '#state = :started AND operation_id = :operation', names: { '#state': 'state' }, values: { ':started': 'started', ':operation': record.operation_id } };
    try {
      if (options.creates) {
        // A refusal: no items, so its answer is written.
        const answered: CompletedRecord = { operation: record.operation, operation_id: record.operation_id, fingerprint: record.fingerprint, state: 'completed', status_code: result.status, body, created_at: record.created_at };
        try {
          await putItem(runtime, { ...key, entity: 'idempotency', ...answered, expires_at_epoch: keyExpiry(record.created_at) }, stillStarted);
        } catch (error) {
          if (!isConditionalCheckFailed(error)) throw error;
          throw new ConditionsFailed([{ index: 0, item: undefined }]);
        }
      } else {
        const answer: Update = {
          expression: 'SET #state = :completed, status_code = :status, body = :body REMOVE gsi3pk, gsi3sk, #request, pinned, principal, request_id',
          condition: stillStarted.condition,
          names: { ...stillStarted.names, '#request': 'request' },
          values: { ...stillStarted.values, ':completed': 'completed', ':status': result.status, ':body': body },
        };
        await transact(runtime, [...result.items, updateAction(runtime.table, key, answer)]);
      }
      return { status: result.status, body, replayed: false };
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const keyFailed = error.indexes.includes(result.items.length);
      if (!keyFailed && plan?.freshCommit && attempt < FRESH_COMMIT_ATTEMPTS) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** attempt)));
        continue;
      }
      // A twin committed first: its answer is the answer.
      const winner = await readRecord(runtime, tenantId, idempotencyKey);
      if (winner?.state === 'completed') return { status: winner.status_code!, body: winner.body!, replayed: true };
      // Another item's condition failed under a twin still committing: the retry will see its answer.
      throw new AppError('idempotency_in_flight', 'Retry the request with the same Idempotency-Key.');
    }
  }
}

/**
 * A `creates` commit: its Puts of new items in one batch, their create-once conditions left out
 * (one already there is this operation's, from an earlier try, and the same bytes); answers the items.
 */
async function writeCreates(runtime: WalletDeps, items: TransactItem[], faults: SagaFaults): Promise<Item[]> {
  const created = items.map((item) => {
    const put = item.Put;
    if (!put || put.ConditionExpression !== 'attribute_not_exists(pk)') throw new Error('a creates commit holds only Puts of new items');
    return put.Item as Item;
  });
  await putItems(runtime, created);
  faults.afterCreates?.();
  return created;
}

/** Domain refusals become the key's final answer; anything else is transient. */
function asRefusal(error: unknown): AppError | undefined {
  if (error instanceof LedgerRefusal) {
    // The ledger has (or is writing) an answer under this key: a success it made must not be
    // answered as a refusal. Leave the key started; the retry or the sweeper replays it.
    if (error.code === 'idempotency_in_flight' || error.code === 'idempotency_key_reuse') return undefined;
    // The ledger's detail names its accounts and claim keys, which are not the wallet's to show.
    const code = ledgerCodeToWallet(error.code);
    return new AppError(code, REFUSAL_DETAILS[code]);
  }
  if (error instanceof AppError && error.status < 500 && error.code !== 'idempotency_in_flight') return error;
  return undefined;
}

/** What a wallet client reads for a ledger refusal (the catalogue's title for the others). */
const REFUSAL_DETAILS: Partial<Record<ErrorCode, string>> = {
  insufficient_funds: 'The available balance does not cover this operation.',
  limit_exceeded: 'This operation would pass a spending limit.',
  account_frozen: 'An account this operation moves money on is frozen.',
  account_closed: 'An account this operation moves money on is closed.',
};

/** Ledger codes a wallet client may see as they are; the ledger's 404s mean a wallet-side mismatch. */
function ledgerCodeToWallet(code: string): ErrorCode {
  const passThrough: ErrorCode[] = ['insufficient_funds', 'limit_exceeded', 'account_frozen', 'account_closed', 'conflict', 'precondition_failed'];
  return (passThrough as string[]).includes(code) ? (code as ErrorCode) : 'invalid_request';
}

async function readRecord(runtime: WalletDeps, tenantId: string, key: string): Promise<StoredRecord | undefined> {
  const item = await getItem(runtime, operationKeys.record(tenantId, key));
  if (!item || Number(item.expires_at_epoch) < Math.floor(runtime.clock.now().getTime() / 1000)) return undefined;
  return item as unknown as StoredRecord;
}

/**
 * The sweeper: finishes every operation left unfinished for longer than SWEEP_AFTER_MS, and
 * answers how many it finished. Every key is in the sweep index from its start until an answer is
 * written, and a `creates` success writes none, so the index holds the day's keys: the sweeper
 * walks each shard (the four at once) from where its last walk ended (less SWEEP_RESCAN_MS, for
 * entries that showed late) up to SWEEP_AFTER_MS ago, reads the items of the `creates` keys it meets in one batch per
 * page, and resumes those with an item missing and every other started key. One it cannot finish
 * (the ledger is down) is indexed again at now, for a later walk.
 */
export async function sweepOperations(runtime: WalletDeps): Promise<number> {
  const now = runtime.clock.now().getTime();
  const shards = Array.from({ length: SWEEP_SHARDS }, (_, shard) => sweepShard(runtime, shard, now));
  return (await Promise.all(shards)).reduce((sum, finished) => sum + finished, 0);
}

/**
 * One shard's walk, its mark moved on after every page (a walk cut short by its function's timeout
 * keeps what it did). Everything walked up to an instant is marked as walked up to SWEEP_RESCAN_MS
 * before it, so the next walk reads that stretch again.
 */
async function sweepShard(runtime: WalletDeps, shard: number, now: number): Promise<number> {
  const before = new Date(now - SWEEP_AFTER_MS).toISOString();
  const mark = await getItem(runtime, operationKeys.sweptThrough(shard));
  const after = typeof mark?.through === 'string' ? mark.through : new Date(now - IDEMPOTENCY_RETENTION_SECONDS * 1000).toISOString();
  if (after >= before) return 0;
  const markThrough = async (instant: string) => {
    const through = new Date(Date.parse(instant) - SWEEP_RESCAN_MS).toISOString();
    if (through <= after) return;
    try {
      await putItem(runtime, { ...operationKeys.sweptThrough(shard), entity: 'saga_sweep', through }, { condition: 'attribute_not_exists(pk) OR through < :through', values: { ':through': through } });
    } catch (error) {
      // Another walk got further.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  };
  const entries = dueEntries(runtime.client, runtime.table, {
    index: 'gsi3',
    partition: operationKeys.pendingShard(shard),
    after,
    before,
    projection: 'operation, operation_id, #state, created_at',
    names: { '#state': 'state' },
  });
  let finished = 0;
  let page: { tenantId: string; key: string; instant: string; record: StoredRecord }[] = [];
  const sweepPage = async () => {
    // Read a while after they were written: an eventually consistent read sees them; whether
    // they are there is all a walk needs.
    const answered = await createdItems(runtime, page, { consistent: false, keysOnly: true });
    for (const { tenantId, key, record: entry } of page) {
      if (answered.has(entry.operation_id)) continue;
      const record = await readRecord(runtime, tenantId, key);
      if (!record || record.state !== 'started' || record.operation_id !== entry.operation_id) continue;
      try {
        await resume(runtime, tenantId, key, record as StartedRecord, {});
        finished += 1;
      } catch {
        // Still failing (the ledger is down): indexed again, for a later walk.
        await reindex(runtime, tenantId, key, record.operation_id);
      }
    }
    await markThrough(page[page.length - 1]!.instant);
    page = [];
  };
  for await (const item of entries) {
    page.push({ ...operationKeys.ofRecord(item.pk), instant: String(item.gsi3sk).split('#')[0]!, record: item as unknown as StoredRecord });
    if (page.length === 100) await sweepPage();
  }
  if (page.length > 0) await sweepPage();
  await markThrough(before);
  return finished;
}
