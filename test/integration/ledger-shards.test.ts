import { beforeAll, describe, expect, it } from 'vitest';
import { getItem, getItems, transact } from '../../shared/aws/store';
import { AppError } from '../../shared/kernel/errors';
import { ledgerKeys } from '../../shared/ledger/keys';
import type { Entry } from '../../shared/ledger/schemas';
import { ledgerFixture, leg } from '../support/ledger';

/**
 * Sharded accounts (shared/ledger/shards.ts): credits spread over shard items, balances summed,
 * floors exact with the shards swept in on demand, status on every shard, history complete.
 *
 * Postings sent many at once go as a client sends them (`transferUntilFinal`): they queue on this
 * process's one client (50 sockets) and on DynamoDB Local's locks, and on a busy machine the store's
 * attempts run out and it answers 503 service_unavailable, retryable, as it should; the client
 * sends the posting again under the same Idempotency-Key (issue 30: beside another suite, 200
 * credits sent once each failed). So these tests also show a resent posting lands once.
 */

type Fixture = Awaited<ReturnType<typeof ledgerFixture>>;
let f: Fixture;
beforeAll(async () => {
  f = await ledgerFixture();
});

const SHARDS = 8;
const shardItems = (accountId: string, shards = SHARDS) => getItems(f, ledgerKeys.accountShards(accountId, shards));
const ownItem = async (accountId: string) => (await getItem(f, ledgerKeys.account(accountId)))!;

async function allEntries(accountId: string, limit: number) {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await f.service.listEntries(f.consumerId, f.ledgerId, accountId, cursor, limit);
    entries.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return entries;
}

describe('sharded accounts', () => {
  it('takes 200 concurrent credits on its shards, balance exact, every entry listed once newest first', async () => {
    const sources = await Promise.all(Array.from({ length: 40 }, () => f.open({ floor: null, owner_type: 'tenant', purpose: 'funding' })));
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement', shards: SHARDS });
    expect(merchant.shards).toBe(SHARDS);

    const amounts = Array.from({ length: 200 }, (_, i) => 1 + (i % 97));
    const results = await Promise.all(amounts.map((amount, i) => f.transferUntilFinal(sources[i % sources.length]!.id, merchant.id, amount)));
    expect(results.every((r) => r.status === 201)).toBe(true);

    const total = amounts.reduce((sum, amount) => sum + amount, 0);
    expect(await f.balance(merchant.id)).toEqual({ posted: total, pending_debits: 0, pending_credits: 0, available: total });
    // The money is on the shards, spread, and none on the account's own item.
    const shards = await shardItems(merchant.id);
    expect(shards.filter((shard) => Number(shard?.posted) > 0).length).toBeGreaterThan(4);
    expect(Number((await ownItem(merchant.id)).posted)).toBe(0);

    const entries = await allEntries(merchant.id, 37);
    expect(entries).toHaveLength(200);
    expect(new Set(entries.map((e) => e.transaction_id)).size).toBe(200);
    expect(entries.map((e) => e.transaction_id)).toEqual([...results.map((r) => r.json.id)].sort().reverse());
    expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(total);
    expect((await f.service.rollup(f.consumerId, f.ledgerId)).balanced).toBe(true);
  });

  it('debits to the floor with the money on the shards, sweeping them in, and refuses one unit more', async () => {
    const source = await f.open({ floor: null });
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement', shards: SHARDS });
    for (let i = 0; i < 10; i += 1) await f.transfer(source.id, merchant.id, 100);
    expect(Number((await ownItem(merchant.id)).available)).toBe(0);
    const version = (await f.service.getAccount(f.consumerId, f.ledgerId, merchant.id)).version;

    expect((await f.transfer(merchant.id, source.id, 1000)).status).toBe(201);
    const refused = await f.transfer(merchant.id, source.id, 1);
    expect(refused.status).toBe(422);
    expect(refused.json.code).toBe('insufficient_funds');
    expect(await f.balance(merchant.id)).toEqual({ posted: 0, pending_debits: 0, pending_credits: 0, available: 0 });
    // The sweep moved money within the account: only the debit changed its version.
    expect((await f.service.getAccount(f.consumerId, f.ledgerId, merchant.id)).version).toBe(version + 1);
    expect((await shardItems(merchant.id)).every((shard) => Number(shard?.posted) === 0)).toBe(true);
  });

  it('never breaches the floor under 40 concurrent debits against money on the shards', async () => {
    const source = await f.open({ floor: null });
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement', shards: SHARDS });
    await Promise.all(Array.from({ length: 20 }, () => f.transferUntilFinal(source.id, merchant.id, 50)));
    const debits = await Promise.all(Array.from({ length: 40 }, () => f.transferUntilFinal(merchant.id, source.id, 50)));
    const accepted = debits.filter((d) => d.status === 201).length;
    for (const refused of debits.filter((d) => d.status !== 201)) expect(refused.json.code).toBe('insufficient_funds');
    // Exact: every unit the shards held could be debited, and not one more.
    expect(accepted).toBe(20);
    expect(await f.balance(merchant.id)).toMatchObject({ posted: 0, available: 0 });
  });

  it('freezes and closes every shard: credits are refused on all of them', async () => {
    const source = await f.open({ floor: null });
    const revenue = await f.open({ owner_type: 'tenant', purpose: 'revenue', shards: SHARDS });
    await f.transfer(source.id, revenue.id, 5);
    await f.service.updateAccount(f.consumerId, f.ledgerId, revenue.id, { status: 'frozen' });
    expect((await shardItems(revenue.id)).map((shard) => shard?.status)).toEqual(Array(SHARDS).fill('frozen'));
    // Distinct transactions land on distinct shards; every one of them is refused.
    const refused = await Promise.all(Array.from({ length: 24 }, () => f.transferUntilFinal(source.id, revenue.id, 1)));
    expect(refused.map((r) => r.json.code)).toEqual(Array(24).fill('account_frozen'));
    expect(await f.balance(revenue.id)).toMatchObject({ posted: 5 });

    await f.service.updateAccount(f.consumerId, f.ledgerId, revenue.id, { status: 'active' });
    expect((await f.transfer(source.id, revenue.id, 1)).status).toBe(201);
    await expect(f.service.updateAccount(f.consumerId, f.ledgerId, revenue.id, { status: 'closed' })).rejects.toMatchObject({ code: 'invalid' });
    expect((await f.transfer(revenue.id, source.id, 6)).status).toBe(201);
    const closed = await f.service.updateAccount(f.consumerId, f.ledgerId, revenue.id, { status: 'closed' });
    expect(closed.status).toBe('closed');
    expect((await shardItems(revenue.id)).map((shard) => shard?.status)).toEqual(Array(SHARDS).fill('closed'));
    expect((await f.transfer(source.id, revenue.id, 1)).json.code).toBe('account_closed');
  });

  it('holds and releases credits on the shard of their pending, and posts captures there', async () => {
    const source = await f.open({ floor: null });
    const payer = await f.open();
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement', shards: SHARDS });
    await f.transfer(source.id, payer.id, 1000);
    const reserve = async (amount: number) => {
      const body = { type: 'payment', legs: [leg(payer.id, 'debit', amount), leg(merchant.id, 'credit', amount)] };
      return JSON.parse((await f.service.reserve(f.consumerId, f.ledgerId, body, f.idem('createPending', body))).body) as { id: string };
    };
    const captured = await reserve(600);
    const voided = await reserve(300);
    expect(await f.balance(merchant.id)).toEqual({ posted: 0, pending_debits: 0, pending_credits: 900, available: 0 });
    const capture = { type: 'capture', post_pending_id: captured.id, legs: [leg(payer.id, 'debit', 500), leg(merchant.id, 'credit', 500)] };
    expect((await f.service.post(f.consumerId, f.ledgerId, capture, f.idem('createPosting', capture))).status).toBe(201);
    expect((await f.service.voidPending(f.consumerId, f.ledgerId, voided.id, f.idem('voidPending', voided.id))).status).toBe(200);
    expect(await f.balance(merchant.id)).toEqual({ posted: 500, pending_debits: 0, pending_credits: 0, available: 500 });
    expect(await f.balance(payer.id)).toEqual({ posted: 500, pending_debits: 0, pending_credits: 0, available: 500 });
    // Each hold was released on the shard it was made on.
    expect((await shardItems(merchant.id)).every((shard) => Number(shard?.pending_credits) === 0)).toBe(true);
  });

  it('sweeps every sharded account on schedule without changing a balance or a version', async () => {
    const source = await f.open({ floor: null });
    const pool = await f.open({ owner_type: 'tenant', purpose: 'rewards_funding', shards: 4 });
    for (let i = 0; i < 6; i += 1) await f.transfer(source.id, pool.id, 10 + i);
    const before = await f.service.getAccount(f.consumerId, f.ledgerId, pool.id);
    expect(await f.service.sweepShards()).toBeGreaterThanOrEqual(1);
    const after = await f.service.getAccount(f.consumerId, f.ledgerId, pool.id);
    expect(after.balance).toEqual(before.balance);
    expect(after.version).toBe(before.version);
    expect(Number((await ownItem(pool.id)).posted)).toBe(75);
    expect((await shardItems(pool.id, 4)).every((shard) => Number(shard?.posted) === 0)).toBe(true);
  });

  it('raises shards on an account with history: balance kept, cursors still valid, lowering refused', async () => {
    const source = await f.open({ floor: null });
    const account = await f.open({ owner_type: 'merchant', purpose: 'settlement' });
    for (let i = 0; i < 5; i += 1) await f.transfer(source.id, account.id, 10);
    const firstPage = await f.service.listEntries(f.consumerId, f.ledgerId, account.id, undefined, 2);

    const raised = await f.service.updateAccount(f.consumerId, f.ledgerId, account.id, { shards: SHARDS });
    expect(raised).toMatchObject({ shards: SHARDS, balance: { posted: 50 } });
    for (let i = 0; i < 12; i += 1) await f.transfer(source.id, account.id, 1);
    expect(await f.balance(account.id)).toMatchObject({ posted: 62 });

    // The cursor issued before the raise still pages on through the older entries.
    const rest: Entry[] = [];
    let cursor = firstPage.next_cursor ?? undefined;
    while (cursor) {
      const page = await f.service.listEntries(f.consumerId, f.ledgerId, account.id, cursor, 2);
      rest.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    }
    expect(rest).toHaveLength(3);
    expect((await allEntries(account.id, 5)).length).toBe(17);
    await expect(f.service.updateAccount(f.consumerId, f.ledgerId, account.id, { shards: 2 })).rejects.toMatchObject({ code: 'invalid' });
    await expect(f.service.listEntries(f.consumerId, f.ledgerId, account.id, Buffer.from(JSON.stringify({ l: 'entries', o: account.id, p: { s: 'ACCOUNT' } })).toString('base64url'), 2)).rejects.toBeInstanceOf(AppError);
  });

  it('creates the shard an earlier raise left out (it began at shard 1) on the next change, so a freeze answers', async () => {
    const source = await f.open({ floor: null });
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement', shards: 4 });
    // As a raise from one shard used to leave it: shards 1..3 and the count, no shard 0.
    await transact(f, [{ Delete: { TableName: f.table, Key: ledgerKeys.accountShard(merchant.id, 0) } }]);

    const frozen = await f.service.updateAccount(f.consumerId, f.ledgerId, merchant.id, { status: 'frozen' });
    expect(frozen.status).toBe('frozen');
    expect((await shardItems(merchant.id, 4)).map((shard) => shard?.status)).toEqual(Array(4).fill('frozen'));
    await f.service.updateAccount(f.consumerId, f.ledgerId, merchant.id, { status: 'active' });
    const credits = await Promise.all(Array.from({ length: 16 }, () => f.transferUntilFinal(source.id, merchant.id, 1)));
    expect(credits.map((c) => c.status)).toEqual(Array(16).fill(201));
  });

  it('replays a posting that credited a shard byte for byte', async () => {
    const source = await f.open({ floor: null });
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement', shards: SHARDS });
    const first = await f.transfer(source.id, merchant.id, 42, { metadata: { b: '2', a: '1' } }, 'shard-replay');
    const again = await f.transfer(source.id, merchant.id, 42, { metadata: { a: '1', b: '2' } }, 'shard-replay');
    expect(again.replayed).toBe(true);
    expect(again.body).toBe(first.body);
    expect(await f.balance(merchant.id)).toMatchObject({ posted: 42 });
  });
});
