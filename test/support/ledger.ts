import { inject } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { DocumentClient } from '../../shared/aws/dynamodb';
import { ensureTables } from '../../local/tables';
import type { Clock } from '../../shared/kernel/clock';
import { systemClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { fingerprintOf } from '../../shared/http/json';
import type { IdempotencyContext } from '../../shared/ledger/idempotency';
import type { Account, Transaction } from '../../shared/ledger/schemas';
import { LedgerService } from '../../shared/ledger/service';

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
    async transfer(from: string, to: string, amount: number, extra: Record<string, unknown> = {}, key?: string) {
      const body = { type: 'transfer', legs: [leg(from, 'debit', amount), leg(to, 'credit', amount)], ...extra };
      const outcome = await service.post(consumerId, ledger.id, body as never, idem('createPosting', body, key));
      return { ...outcome, json: JSON.parse(outcome.body) as Transaction & { code?: string } };
    },
    async balance(accountId: string) {
      return (await service.getAccount(consumerId, ledger.id, accountId)).balance;
    },
  };
}

export const leg = (account_id: string, direction: 'debit' | 'credit', amount: number, commodity = 'USD') => ({ account_id, direction, amount, commodity });
