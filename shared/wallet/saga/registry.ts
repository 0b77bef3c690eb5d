import type { TransactItem } from '../../aws/dynamodb';
import type { Item } from '../../aws/store';
import type { Principal } from '../../http/principal';
import { derivedUuidv7 } from '../../kernel/ids';
import type { WalletDeps } from '../deps';

/**
 * The operations a saga can run, by name (DESIGN.md "Money moves"): each service defines its own
 * at module scope; the sweeper loads a module only when it finds one of its operations unfinished.
 * What an operation is: its plan (the ledger call, then the wallet's commit), built from the
 * request and what its first try pinned, never from the state of now.
 */

export interface OperationPlan {
  /** Step 2: the ledger call(s), idempotent under keys derived from `ledgerKey`. */
  post(ledgerKey: string): Promise<unknown>;
  /**
   * Step 3: the wallet's writes for what the ledger did, and the answer to the client. Once the
   * ledger has posted, the commit must land: it refuses nothing (a refusal thrown here is not
   * answered; the key stays started and the retry or the sweeper tries again), so it is built
   * to fit whatever state a racing change left (docs/decisions.md "Money paths").
   */
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

export type StoredPrincipal = Pick<Principal, 'kind' | 'id' | 'tenantId' | 'userId'>;

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
   * The plan's inputs the first try fixed (runOperation's `pinned`: a quote, a fee, reward rules,
   * the stock each line reserved, a limit window), stored with the key and handed back unchanged
   * on every resume, so the ledger posting a retry sends is byte for byte the first one even if a
   * fee plan, a rule or a stock count changed in between.
   */
  pinned: unknown;
}

export type OperationDefinition = (context: OperationContext) => Promise<OperationPlan>;

export interface RegisteredOperation {
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
export async function operationNamed(name: string): Promise<RegisteredOperation | undefined> {
  const known = registry.get(name);
  if (known) return known;
  await loaders.get(name)?.();
  return registry.get(name);
}

/** The operation's definition, loading its module if this process has not yet (undefined when none defines it). */
export async function operationDefinition(name: string): Promise<OperationDefinition | undefined> {
  return (await operationNamed(name))?.definition;
}

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
