import { ConditionsFailed, getItems, isConditionalCheckFailed, putItem, putItems, transact, updateAction, type Item, type Update } from '../../aws/store';
import type { TransactItem } from '../../aws/dynamodb';
import type { Principal } from '../../http/principal';
import { AppError, problemBody } from '../../kernel/errors';
import type { Outcome } from '../../http/outcome';
import { logger } from '../../kernel/log';
import type { WalletDeps } from '../deps';
import { keyExpiry, keptPrincipal, LATE_START_MS, operationKeys, readRecord, reindex, sameRequest, scopedFingerprint, type CompletedRecord, type StartedRecord, type SweepEntry } from './key-record';
import { ledgerKeyOf, operationNamed, type CreatesCommit, type OperationPlan } from './registry';
import { asRefusal, asTransient, inFlight } from './refusals';
import { METRIC, recordMetric } from '../../kernel/metrics';
import { faultPoint } from './faults';
import { POLICIES, retrying } from '../../kernel/retry';

/**
 * Money-moving operations as sagas of idempotent steps (DESIGN.md "Money moves"):
 *   1. remember the request under its Idempotency-Key (state `started`, with an operation id and
 *      every input its first try pinned);
 *   2. post to the ledger with a key derived from the operation id, so any retry replays the
 *      same posting instead of making a second one;
 *   3. commit the wallet's record, its outbox event and the key's final answer, conditioned on
 *      the key still being `started`: in ONE TransactWriteItems; or, for an operation that only
 *      creates items of its own (`creates`), those items in one batch, which is the answer: a
 *      retry finds them all and answers from them.
 * A crash between 2 and 3 leaves the key started and its items (some of them) missing: the
 * client's retry resumes it, and the sweeper finishes what nobody retried, both from the plan the
 * first try pinned. Once the ledger has posted, nothing is answered as a refusal: the commit lands
 * or the key stays started for the next try (docs/decisions.md "Money paths").
 */

/** Hooks for tests that prove crash safety; production code never sets them. */
export interface SagaFaults {
  /** After the first try's key is written, before its plan is built (a crash, or a racing change let in). */
  afterStart?: () => void | Promise<void>;
  afterLedger?: () => void | Promise<void>;
  /** After a `creates` commit's items were written, before the answer reaches the client. */
  afterCreates?: () => void | Promise<void>;
}

/**
 * Runs a money operation once per Idempotency-Key and caller. Refuses: idempotency_key_reuse (the
 * key was used by another caller or for another request), and whatever the operation refuses
 * before the ledger posts (remembered under the key, like a success).
 * `pinned` is stored with the key but is not part of the request's fingerprint: values the server
 * derived (a fee, reward rules, a limit window) that every resume must reuse; a later request with
 * the same key gets the first request's pinned values, never its own.
 */
export async function runOperation(
  runtime: WalletDeps,
  input: { operation: string; tenantId: string; idempotencyKey: string; request: unknown; principal: Principal; requestId: string; pinned?: unknown },
  faults: SagaFaults = {},
): Promise<Outcome> {
  const now = runtime.clock.now();
  const key = operationKeys.record(input.tenantId, input.idempotencyKey);
  const operationId = runtime.ids();
  const record: StartedRecord = {
    operation: input.operation,
    operation_id: operationId,
    fingerprint: scopedFingerprint(input.operation, input.principal, input.request),
    state: 'started',
    request: JSON.stringify(input.request),
    ...(input.pinned === undefined ? {} : { pinned: JSON.stringify(input.pinned) }),
    principal: keptPrincipal(input.principal),
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
    return resumeExisting(runtime, input, faults);
  }
  if (runtime.clock.now().getTime() - now.getTime() > LATE_START_MS) {
    throw new AppError('service_unavailable', 'The request was recorded too slowly to go on safely; retry it with the same Idempotency-Key.');
  }
  await faults.afterStart?.();
  return resume(runtime, input.tenantId, input.idempotencyKey, record, faults);
}

/** A key already there: its answer, the answer its items give, or the operation taken over. */
async function resumeExisting(
  runtime: WalletDeps,
  input: { operation: string; tenantId: string; idempotencyKey: string; request: unknown; principal: Principal },
  faults: SagaFaults,
): Promise<Outcome> {
  const existing = await readRecord(runtime, input.tenantId, input.idempotencyKey);
  if (!existing) throw inFlight();
  if (!sameRequest(existing, input.operation, input.principal, input.request)) {
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
export async function createdItems(
  runtime: WalletDeps,
  records: { tenantId: string; record: SweepEntry }[],
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

/**
 * Runs (or replays) a started operation to its answer from its stored request and pinned plan. A
 * refusal before the ledger posts is answered; after it, nothing is: a commit that throws leaves
 * the key started (the ledger's postings are replayed by the next try, under the same keys).
 */
export async function resume(runtime: WalletDeps, tenantId: string, idempotencyKey: string, record: StartedRecord, faults: SagaFaults): Promise<Outcome> {
  const outcome = await resumeToAnswer(runtime, tenantId, idempotencyKey, record, faults);
  if (!outcome.replayed) recordOutcome(record.operation, outcome);
  return outcome;
}

/** `MoneyOperationsCompleted` or `MoneyOperationsRefused` (with the refusal's code), by operation: once per answer this run wrote. */
function recordOutcome(operation: string, outcome: Outcome): void {
  if (outcome.status < 400) {
    recordMetric(METRIC.moneyCompleted, 'Count', 1, { Operation: operation });
    return;
  }
  let code = 'unknown';
  try {
    code = String((JSON.parse(outcome.body) as { code?: unknown }).code ?? code);
  } catch {
    // Not a problem body: counted under `unknown`.
  }
  recordMetric(METRIC.moneyRefused, 'Count', 1, { Operation: operation, Code: code });
}

async function resumeToAnswer(runtime: WalletDeps, tenantId: string, idempotencyKey: string, record: StartedRecord, faults: SagaFaults): Promise<Outcome> {
  await faultPoint(record.operation, 'beforeLedger');
  const operation = await operationNamed(record.operation);
  if (!operation) throw new Error(`unknown operation ${record.operation}`);
  const { definition, options } = operation;
  let plan: OperationPlan | undefined;
  let posted: { value: unknown } | undefined;
  const commitOnce = async (): Promise<{ items: TransactItem[]; status: number; body: unknown }> => {
    if (!posted) {
      try {
        plan ??= await definition({
          runtime,
          tenantId,
          operationId: record.operation_id,
          principal: { ...record.principal, tenantId },
          request: JSON.parse(record.request) as unknown,
          requestId: record.request_id,
          startedAt: record.created_at,
          pinned: record.pinned === undefined ? undefined : (JSON.parse(record.pinned) as unknown),
        });
        posted = { value: await plan.post(ledgerKeyOf(tenantId, record.operation_id)) };
      } catch (error) {
        const refusal = asRefusal(error);
        // Transient failures leave the key started, for a retry or the sweeper.
        if (!refusal) throw asTransient(error);
        return { items: [], status: refusal.status, body: problemBody(refusal, record.request_id) };
      }
      await faults.afterLedger?.();
      await faultPoint(record.operation, 'afterLedger');
    }
    try {
      return await plan!.commit(posted.value);
    } catch (error) {
      // The ledger has posted: whatever the commit throws is not the operation's answer.
      if (error instanceof AppError && error.status < 500) {
        logger.error('a saga commit refused after the ledger posted: the key stays started', { operation: record.operation, operation_id: record.operation_id, code: error.code });
        throw new AppError('service_unavailable', 'The operation is being completed; retry it with the same Idempotency-Key.');
      }
      throw asTransient(error);
    }
  };
  const commitAttempt = async (): Promise<Outcome> => {
    const result = await commitOnce();
    await faultPoint(record.operation, 'beforeCommit');
    if (options.creates && result.items.length > 0) {
      // The items are the answer; the client gets what a retry will read back from them.
      const stored = await writeCreates(runtime, result.items, faults);
      await faultPoint(record.operation, 'afterCommit');
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
      await faultPoint(record.operation, 'afterCommit');
      return { status: result.status, body, replayed: false };
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      // Not the key's condition, under a fresh-commit plan: it read something another writer changed since, so the commit is built again.
      throw new CommitLost(!error.indexes.includes(result.items.length) && plan?.freshCommit === true);
    }
  };
  try {
    return await retrying(POLICIES.contended, commitAttempt, { retryable: (error) => error instanceof CommitLost && error.rebuild, exhausted: (error) => error as CommitLost });
  } catch (error) {
    if (!(error instanceof CommitLost)) throw error;
    // A twin committed first: its answer is the answer.
    const winner = await readRecord(runtime, tenantId, idempotencyKey);
    if (winner?.state === 'completed') return { status: winner.status_code!, body: winner.body!, replayed: true };
    // Another item's condition failed under a twin still committing: the retry will see its answer.
    throw inFlight();
  }
}

/** The commit's conditions failed; `rebuild`: a fresh-commit operation's, lost to a change of what it read. */
class CommitLost extends Error {
  constructor(readonly rebuild: boolean) {
    super('the commit lost to a concurrent change');
    this.name = 'CommitLost';
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
  await faults.afterCreates?.();
  return created;
}
