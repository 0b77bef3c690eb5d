import { inject } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { DocumentClient } from '../../shared/aws/dynamodb';
import { ensureTables } from '../../local/tables';
import type { Clock } from '../../shared/kernel/clock';
import { systemClock } from '../../shared/kernel/clock';
import { AppError, retryableCodes } from '../../shared/kernel/errors';
import { uuidv7 } from '../../shared/kernel/ids';
import { retrying, type RetryPolicy } from '../../shared/kernel/retry';
import { fingerprintOf } from '../../shared/http/json';
import type { IdempotencyContext } from '../../shared/ledger/idempotency';
import type { Account, Transaction } from '../../shared/ledger/schemas';
import { LedgerService } from '../../shared/ledger/service';

/**
 * How a client resends what the ledger refused as retryable (503 service_unavailable when the
 * store's retries ran out on a busy machine): under the same Idempotency-Key, after a full-jitter
 * pause growing to 2 s, at most 20 sends, as the HTTP tests' `sendUntilFinal` (./http.ts).
 */
const CLIENT_RESENDS: RetryPolicy = { attempts: 20, baseMs: 100, capMs: 2_000 };

/** A LedgerService on the run's DynamoDB Local with tables of its own, for service-level tests. */
export async function ledgerFixture(options: { clock?: Clock; wrap?: (client: DocumentClient) => DocumentClient } = {}) {
  const tables = await ensureTables(inject('dynamodbEndpoint'), `l${uuidv7().replace(/-/g, '').slice(-12)}`);
  const document = localDocumentClient(inject('dynamodbEndpoint'));
  const client = options.wrap ? options.wrap(document) : document;
  const service = new LedgerService({ client, table: tables.ledger.name, clock: options.clock ?? systemClock, ids: uuidv7, feedSettleMs: 0, sleep: async () => undefined });
  const consumerId = uuidv7();
  const ledger = JSON.parse((await service.createLedger(consumerId, { name: 'test', commodity: 'USD' })).body) as { id: string };

  let keys = 0;
  const idem = (operation: string, body: unknown, key = `k-${(keys += 1)}-${uuidv7()}`): IdempotencyContext => ({
    scope: ledger.id,
    key,
    operation,
    fingerprint: fingerprintOf(operation, body, 'hex'),
    requestId: uuidv7(),
  });

  async function transfer(from: string, to: string, amount: number, extra: Record<string, unknown> = {}, key?: string) {
    const body = { type: 'transfer', legs: [leg(from, 'debit', amount), leg(to, 'credit', amount)], ...extra };
    const outcome = await service.post(consumerId, ledger.id, body as never, idem('createPosting', body, key));
    return { ...outcome, json: JSON.parse(outcome.body) as Transaction & { code?: string } };
  }

  return {
    client,
    service,
    table: tables.ledger.name,
    consumerId,
    ledgerId: ledger.id,
    idem,
    async open(input: { purpose?: string; floor?: number | null; commodity?: string; owner_type?: string; shards?: number } = {}): Promise<Account> {
      const outcome = await service.openAccount(consumerId, ledger.id, {
        owner_type: input.owner_type ?? 'user',
        owner_id: uuidv7(),
        purpose: input.purpose ?? 'cash',
        commodity: input.commodity ?? 'USD',
        floor: input.floor === undefined ? 0 : input.floor,
        ...(input.shards ? { shards: input.shards } : {}),
      });
      return JSON.parse(outcome.body) as Account;
    },
    /** One posting, sent once: a 503 is thrown as the service answered it. */
    transfer,
    /**
     * One posting as a client sends it: a retryable refusal is sent again under the same key until
     * the answer is final (CLIENT_RESENDS). For many postings at once on one process's client: they
     * queue for its 50 pooled sockets and for DynamoDB Local's locks, and on a busy machine a store
     * runs out of attempts, rightly answering 503 for the client to resend.
     */
    transferUntilFinal: (from: string, to: string, amount: number, extra: Record<string, unknown> = {}, key: string = uuidv7()) =>
      retrying(CLIENT_RESENDS, () => transfer(from, to, amount, extra, key), {
        retryable: (error) => error instanceof AppError && retryableCodes.has(error.code),
        exhausted: (error) => error as Error,
      }),
    async balance(accountId: string) {
      return (await service.getAccount(consumerId, ledger.id, accountId)).balance;
    },
  };
}

export const leg = (account_id: string, direction: 'debit' | 'credit', amount: number, commodity = 'USD') => ({ account_id, direction, amount, commodity });
