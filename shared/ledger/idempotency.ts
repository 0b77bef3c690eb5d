import { getItem, isConditionalCheckFailed, putItem, type TableDeps } from '../aws/store';
import { AppError, problemBody } from '../kernel/errors';
import type { Outcome } from '../http/outcome';
import { ledgerKeys } from './keys';
import type { TransactItem } from '../aws/dynamodb';

/**
 * Idempotency records of the ledger. A record is written in the same TransactWriteItems as the
 * money it answers for, so "posted" and "remembered" cannot come apart: a concurrent or later
 * request with the same key fails the record's condition and replays the stored answer. State-
 * dependent refusals (insufficient funds, a frozen account...) are remembered too, as Stripe does,
 * so a retry cannot post what the first attempt refused; malformed requests are not (nothing began).
 *
 * A money write's record holds no copy of its answer, only what the answer is rendered from (`ref`:
 * the transaction or pending it wrote, which are never deleted), so the record stays a small item
 * on the hot path; a replay renders the same bytes again through the one serializer
 * (./records.ts). Refusals and the answers of ledger and account creation keep their body.
 */

export interface IdempotencyContext {
  /** `<ledgerId>` or `CONSUMER#<id>` for ledger creation. */
  scope: string;
  key: string;
  operation: string;
  fingerprint: string;
  requestId: string;
}

/**
 * What an answer is re-rendered from: `transaction <id>` (as posted), `pending <id>` (as it is: a
 * resolution is final) or `pending_created <id>` (as it was reserved).
 */
export type AnswerRef = `${'transaction' | 'pending' | 'pending_created'} ${string}`;

/** A stored answer: its bytes, or what they are rendered from. */
export type Answer = { body: string } | { ref: AnswerRef };

interface StoredRecord {
  operation: string;
  fingerprint: string;
  status_code: number;
  body?: string;
  ref?: AnswerRef;
  created_at: string;
  expires_at_epoch: number;
}

export interface ReadRecord {
  key: string;
  operation: string;
  fingerprint: string;
  status_code: number;
  body: string;
  created_at: string;
  expires_at_epoch: number;
}


export class IdempotencyStore {
  constructor(
    private readonly deps: TableDeps,
    private readonly retentionSeconds: number,
    /** Renders a referenced answer's bytes from its stored item. */
    private readonly render: (ref: AnswerRef) => Promise<string>,
  ) {}

  /** The Put that records an answer inside the operation's own transaction. */
  recordItem(context: IdempotencyContext, status: number, answer: Answer, now: Date): TransactItem {
    return {
      Put: {
        TableName: this.deps.table,
        Item: this.record(context, status, answer, now),
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at_epoch < :now',
        ExpressionAttributeValues: { ':now': Math.floor(now.getTime() / 1000) },
      },
    };
  }

  /** The stored answer for this key, if one is live; a different request under it is refused. */
  async replay(context: IdempotencyContext, now: Date): Promise<Outcome | undefined> {
    const stored = await this.read(context.scope, context.key, now);
    if (!stored) return undefined;
    if (stored.fingerprint !== context.fingerprint || stored.operation !== context.operation) {
      throw new AppError('idempotency_key_reuse', 'This Idempotency-Key was already used for a different request.');
    }
    return { status: stored.status_code, body: stored.body, replayed: true };
  }

  /** Remembers a state-dependent refusal; if another answer got there first, that one stands. */
  async rememberRefusal(context: IdempotencyContext, error: AppError, now: Date): Promise<Outcome> {
    return this.remember(context, error.status, JSON.stringify(problemBody(error, context.requestId)), now);
  }

  /** Remembers an answer written outside a transaction of its own (a refusal, a period's close); the first one stands. */
  async remember(context: IdempotencyContext, status: number, body: string, now: Date): Promise<Outcome> {
    try {
      await putItem(this.deps, this.record(context, status, { body }, now), {
        condition: 'attribute_not_exists(pk) OR expires_at_epoch < :now',
        values: { ':now': Math.floor(now.getTime() / 1000) },
      });
      return { status, body, replayed: false };
    } catch (putError) {
      if (!isConditionalCheckFailed(putError)) throw putError;
      const stored = await this.replay(context, now);
      if (!stored) throw putError;
      return stored;
    }
  }

  /** The live record of a key with its answer's bytes (rendered again when the record refers to them). */
  async read(scope: string, key: string, now: Date): Promise<ReadRecord | undefined> {
    const item = (await getItem(this.deps, ledgerKeys.idempotency(scope, key))) as StoredRecord | undefined;
    if (!item || item.expires_at_epoch < Math.floor(now.getTime() / 1000)) return undefined;
    const body = item.ref !== undefined ? await this.render(item.ref) : item.body!;
    return { key, operation: item.operation, fingerprint: item.fingerprint, status_code: item.status_code, body, created_at: item.created_at, expires_at_epoch: item.expires_at_epoch };
  }

  private record(context: IdempotencyContext, status: number, answer: Answer, now: Date): StoredRecord & Record<string, unknown> {
    return {
      ...ledgerKeys.idempotency(context.scope, context.key),
      entity: 'idempotency',
      operation: context.operation,
      fingerprint: context.fingerprint,
      status_code: status,
      ...answer,
      created_at: now.toISOString(),
      expires_at_epoch: Math.floor(now.getTime() / 1000) + this.retentionSeconds,
    };
  }
}
