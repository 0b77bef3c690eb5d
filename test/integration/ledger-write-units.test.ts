import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { uuidv7 } from '../../shared/kernel/ids';
import { ledgerTable } from '../../shared/tables';
import { ledgerFixture, leg } from '../support/ledger';
import { meterTransactions } from '../support/write-units';

/**
 * The ledger's write budget (docs/performance.md "Write units"): what one posting costs at AWS
 * on-demand pricing, item by item, priced as bench:wallet prices them.
 */

type Fixture = Awaited<ReturnType<typeof ledgerFixture>>;
let f: Fixture;
let meter: ReturnType<typeof meterTransactions>;

beforeAll(async () => {
  f = await ledgerFixture({
    wrap: (client) => {
      meter = meterTransactions(client, localDocumentClient(inject('dynamodbEndpoint')), ledgerTable);
      return meter.client;
    },
  });
});

/** A posting shaped like the wallet's P2P transfer (reference, metadata naming the transfer). */
async function walletLikePosting(legs: ReturnType<typeof leg>[]) {
  const id = uuidv7();
  const body = { type: 'transfer', reference_id: id, metadata: { transfer_id: id }, legs };
  meter.take();
  const outcome = await f.service.post(f.consumerId, f.ledgerId, body, f.idem('createPosting', body, `transfer.create:${uuidv7()}:post`));
  expect(outcome.status).toBe(201);
  return meter.take();
}

describe('write units per posting', () => {
  it('costs at most 12 units for 2 legs and 16 for 3, a credit on a shard no more, every item under 1 KB, no read of the ledger item', async () => {
    const funding = await f.open({ floor: null, owner_type: 'tenant', purpose: 'funding' });
    const sender = await f.open();
    const receiver = await f.open();
    const revenue = await f.open({ owner_type: 'tenant', purpose: 'revenue', shards: 8 });
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement', shards: 8 });
    await f.transfer(funding.id, sender.id, 1_000_000);

    const two = await walletLikePosting([leg(sender.id, 'debit', 100), leg(receiver.id, 'credit', 100)]);
    const three = await walletLikePosting([leg(sender.id, 'debit', 102), leg(receiver.id, 'credit', 100), leg(revenue.id, 'credit', 2)]);
    const toShard = await walletLikePosting([leg(sender.id, 'debit', 100), leg(merchant.id, 'credit', 100)]);
    // idempotency record 2, transaction 2 + its listing index entry 1, then 2 per entry and 2 per
    // account item, a shard's as an account's own.
    expect(two.units).toBeLessThanOrEqual(12);
    expect(three.units).toBeLessThanOrEqual(16);
    expect(toShard.units).toBe(two.units);
    expect(toShard.items.filter((item) => item.key.endsWith(' SHARD'))).toHaveLength(1);
    for (const item of [...two.items, ...three.items, ...toShard.items]) {
      expect(item.bytes, item.key).toBeLessThan(1024);
      expect(item.key.startsWith('LEDGER#'), item.key).toBe(false);
    }
  });

  it('checks the closed period on the ledger item only for a posting with an explicit effective_at', async () => {
    const a = await f.open({ floor: null });
    const b = await f.open();
    const body = { type: 'backdated', effective_at: new Date(Date.now() - 3_600_000).toISOString(), legs: [leg(a.id, 'debit', 1), leg(b.id, 'credit', 1)] };
    meter.take();
    expect((await f.service.post(f.consumerId, f.ledgerId, body, f.idem('createPosting', body))).status).toBe(201);
    expect(meter.take().items.filter((item) => item.key.startsWith('LEDGER#')).map((item) => item.kind)).toEqual(['ConditionCheck']);
  });
});
