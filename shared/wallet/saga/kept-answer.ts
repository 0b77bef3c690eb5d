import { isConditionalCheckFailed, putItem, updateItem } from '../../aws/store';
import type { Principal } from '../../http/principal';
import type { Outcome } from '../../http/outcome';
import { AppError, problemBody } from '../../kernel/errors';
import type { WalletDeps } from '../deps';
import { keyExpiry, operationKeys, readRecord, sameRequest, scopedFingerprint, SWEEP_AFTER_MS, type StoredRecord } from './key-record';
import { inFlight } from './refusals';

/**
 * The Idempotency-Key of an operation that moves no money (a merchant, a user, an offering, a
 * client's approval...), kept by the handler factory (route rule `keptBy: 'answer'`): the same key
 * record as the saga's (`operationKeys.record`), the same caller-scoped fingerprint and the same
 * 24 h retention, so a key is one thing whatever the route. The record is written `started` before
 * the route's function runs and holds its first answer once it has one; a replay answers those
 * bytes, a different request or another caller under the key is `idempotency_key_reuse`, a twin
 * still running is `idempotency_in_flight`.
 *
 * Nothing here is resumed: the record never enters the sweep index. A refusal (a 4xx the function
 * throws) is kept like a success; a failure (5xx, a crash) releases the key, or, when the process
 * died, leaves it started and a retry after SWEEP_AFTER_MS takes it over and runs the request
 * again (docs/decisions.md "Idempotency").
 */

/** The key space of a caller without a tenant (platform staff): no tenant id (a UUID) is this. */
const PLATFORM_SCOPE = 'platform';

/** What the handler factory hands over: the request as parsed (its canonical JSON is fingerprinted). */
export interface KeptRequest {
  operation: string;
  idempotencyKey: string;
  request: unknown;
  principal: Principal;
  requestId: string;
}

/** A first answer as the route's function gave it: status, exact bytes, its own headers. */
export interface KeptAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export async function keepAnswer(runtime: WalletDeps, input: KeptRequest, run: () => Promise<KeptAnswer>): Promise<Outcome & { headers?: Record<string, string> }> {
  const scope = input.principal.tenantId ?? PLATFORM_SCOPE;
  const key = operationKeys.record(scope, input.idempotencyKey);
  const operation = `answer.${input.operation}`;
  const now = runtime.clock.now();
  const operationId = runtime.ids();
  const started: StoredRecord = {
    operation,
    operation_id: operationId,
    fingerprint: scopedFingerprint(operation, input.principal, input.request),
    state: 'started',
    created_at: now.toISOString(),
  };
  try {
    await putItem(
      runtime,
      { ...key, entity: 'idempotency', ...started, expires_at_epoch: keyExpiry(started.created_at) },
      { condition: 'attribute_not_exists(pk) OR expires_at_epoch < :now', values: { ':now': Math.floor(now.getTime() / 1000) } },
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const existing = await readRecord(runtime, scope, input.idempotencyKey);
    if (!existing) throw inFlight();
    if (!sameRequest(existing, operation, input.principal, input.request)) {
      throw new AppError('idempotency_key_reuse', 'This Idempotency-Key was already used for a different request.');
    }
    if (existing.state === 'completed') return { status: existing.status_code!, body: existing.body!, replayed: true, ...headersOf(existing) };
    // A twin is running, or a process died with the key started: after SWEEP_AFTER_MS it is taken over.
    if (now.getTime() - Date.parse(existing.created_at) < SWEEP_AFTER_MS || !(await takeOver(runtime, key, existing.operation_id, operationId, now))) throw inFlight();
  }
  let answer: KeptAnswer;
  try {
    answer = await run();
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500 || error.code === 'idempotency_in_flight') {
      // Not an answer: the key is released for the retry (expired: the next first try writes over it).
      await updateItem(runtime, key, {
        expression: 'SET expires_at_epoch = :gone',
        condition: '#state = :started AND operation_id = :operation',
        names: { '#state': 'state' },
        values: { ':gone': 0, ':started': 'started', ':operation': operationId },
      }).catch(() => undefined);
      throw error;
    }
    answer = { status: error.status, body: JSON.stringify(problemBody(error, input.requestId)) };
  }
  try {
    await updateItem(runtime, key, {
      expression: `SET #state = :completed, status_code = :status, body = :body${answer.headers ? ', answer_headers = :headers' : ''}`,
      condition: '#state = :started AND operation_id = :operation',
      names: { '#state': 'state' },
      values: {
        ':completed': 'completed',
        ':started': 'started',
        ':operation': operationId,
        ':status': answer.status,
        ':body': answer.body,
        ...(answer.headers ? { ':headers': JSON.stringify(answer.headers) } : {}),
      },
    });
  } catch (error) {
    // Taken over meanwhile (this try ran past SWEEP_AFTER_MS): the answer is still this request's.
    if (!isConditionalCheckFailed(error)) throw error;
  }
  return { status: answer.status, body: answer.body, replayed: false, ...(answer.headers ? { headers: answer.headers } : {}) };
}

/** A started key left by a try that did not finish, made this try's (one taker wins). */
async function takeOver(runtime: WalletDeps, key: { pk: string; sk: string }, from: string, to: string, now: Date): Promise<boolean> {
  try {
    await updateItem(runtime, key, {
      expression: 'SET operation_id = :to, created_at = :now',
      condition: '#state = :started AND operation_id = :from',
      names: { '#state': 'state' },
      values: { ':to': to, ':from': from, ':started': 'started', ':now': now.toISOString() },
    });
    return true;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    return false;
  }
}

const headersOf = (record: StoredRecord): { headers?: Record<string, string> } =>
  record.answer_headers === undefined ? {} : { headers: JSON.parse(record.answer_headers) as Record<string, string> };
