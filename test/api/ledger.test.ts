import { apiClient, expectProblem } from '../support/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { systemClock } from '../../shared/kernel/clock';
import { createConsumerStore } from '../../shared/ledger/consumers';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { ledgerConsumer } from '../support/consumers';
import { call, startTestPlatform } from '../support/platform';
import { leg } from '../support/ledger';

let platform: Platform;
let base: string;
let token: string;
let otherToken: string;
let consumerName: string;
let ledgerId: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { LEDGER_FEED_SETTLE_MS: '0' } });
  base = platform.urls.ledger;
  const consumer = await ledgerConsumer(platform);
  token = consumer.token;
  consumerName = consumer.name;
  otherToken = (await ledgerConsumer(platform)).token;
  ledgerId = (await api('POST', '/v1/ledgers', { body: { name: 'main', commodity: 'USD' } })).body.id;
});
afterAll(() => platform?.stop());

const api = apiClient(() => base, () => token);

const L = () => `/v1/ledgers/${ledgerId}`;

async function open(extra: Record<string, unknown> = {}) {
  const result = await api('POST', `${L()}/accounts`, { body: { owner_type: 'user', owner_id: uuidv7(), purpose: 'cash', commodity: 'USD', ...extra } });
  expect(result.status).toBe(201);
  return result.body as { id: string; version: number };
}

const post = (legs: unknown[], extra: Record<string, unknown> = {}, key = uuidv7()) =>
  api('POST', `${L()}/postings`, { body: { type: 'transfer', legs, ...extra }, key });

describe('ledger API authentication', () => {
  it('refuses a request without a credential, with an API key, and with a token of another issuer', async () => {
    expectProblem(await call(base, 'GET', L()), 'unauthenticated');
    expectProblem(await call(base, 'GET', L(), { token: 'sk_sandbox_0199a1fc_secret' }), 'unauthenticated');
    const foreign = await platform.issuer.mintToken({ iss: 'https://idp.example.test/realms/wallet', sub: 'someone', aud: 'ledger', exp: Math.floor(Date.now() / 1000) + 60 });
    expectProblem(await call(base, 'GET', L(), { token: foreign }), 'unauthenticated');
  });

  it('refuses an expired token and a valid token whose subject is no registered consumer', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await platform.issuer.mintToken({ iss: platform.issuer.issuer, sub: 'x', aud: 'ledger', iat: now - 7200, exp: now - 3600 });
    expectProblem(await call(base, 'GET', L(), { token: expired }), 'unauthenticated');
    const stranger = await platform.issuer.mintToken({ iss: platform.issuer.issuer, sub: 'not-a-consumer', aud: 'ledger', iat: now, exp: now + 60 });
    expectProblem(await call(base, 'GET', L(), { token: stranger }), 'unauthenticated');
  });

  it("answers another consumer's ledger, account and transaction with 404, as if missing", async () => {
    const source = await open({ floor: null });
    const user = await open();
    const posted = await post([leg(source.id, 'debit', 5), leg(user.id, 'credit', 5)]);
    for (const path of [L(), `${L()}/accounts/${user.id}`, `${L()}/transactions/${posted.body.id}`, `${L()}/rollup`]) {
      const result = await api('GET', path, { token: otherToken });
      expectProblem(result, 'ledger_not_found');
    }
    const theirs = (await api('POST', '/v1/ledgers', { body: { name: 'theirs', commodity: 'USD' }, token: otherToken })).body.id;
    expectProblem(await api('GET', `/v1/ledgers/${theirs}/accounts/${user.id}`, { token: otherToken }), 'account_not_found');
    expectProblem(await api('GET', `/v1/ledgers/${theirs}/transactions/${posted.body.id}`, { token: otherToken }), 'transaction_not_found');
  });
});

describe('postings over HTTP', () => {
  it('posts, replays byte for byte with the same key, and refuses the key reused for another body', async () => {
    const source = await open({ floor: null });
    const user = await open();
    const key = uuidv7();
    const first = await post([leg(source.id, 'debit', 250), leg(user.id, 'credit', 250)], {}, key);
    expect(first.status).toBe(201);
    const replay = await post([leg(source.id, 'debit', 250), leg(user.id, 'credit', 250)], {}, key);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await post([leg(source.id, 'debit', 251), leg(user.id, 'credit', 251)], {}, key), 'idempotency_key_reuse');
    const stored = await api('GET', `${L()}/idempotency/${key}`);
    expect(stored.body).toMatchObject({ key, status_code: 201, response: first.body, operation: 'createPosting' });
    expect((await api('GET', `${L()}/accounts/${user.id}`)).body.balance).toEqual({ posted: 250, pending_debits: 0, pending_credits: 0, available: 250 });
  });

  it('requires an Idempotency-Key on postings and refuses malformed postings with invalid', async () => {
    const source = await open({ floor: null });
    const user = await open();
    const withoutKey = await call(base, 'POST', `${L()}/postings`, { token, body: { type: 'transfer', legs: [leg(source.id, 'debit', 1), leg(user.id, 'credit', 1)] } });
    expectProblem(withoutKey, 'invalid');
    expectProblem(await post([leg(source.id, 'debit', 0), leg(user.id, 'credit', 0)]), 'invalid');
    expectProblem(await post([leg(source.id, 'debit', 1.5), leg(user.id, 'credit', 1.5)]), 'invalid');
    expectProblem(await post([leg(source.id, 'debit', 2), leg(user.id, 'credit', 1)]), 'unbalanced');
    expectProblem(await post([leg(source.id, 'debit', 1), leg(uuidv7(), 'credit', 1)]), 'account_not_found');
  });

  it('answers each account refusal with its code', async () => {
    const source = await open({ floor: null });
    const user = await open();
    await post([leg(source.id, 'debit', 100), leg(user.id, 'credit', 100)]);
    expectProblem(await post([leg(user.id, 'debit', 101), leg(source.id, 'credit', 101)]), 'insufficient_funds');
    expectProblem(await post([leg(user.id, 'debit', 1), leg(source.id, 'credit', 1)], { version_is: [{ account_id: user.id, version: 99 }] }), 'precondition_failed');
    expectProblem(await post([leg(user.id, 'debit', 1), leg(source.id, 'credit', 1)], { min_available_after: [{ account_id: user.id, amount: 100 }] }), 'precondition_failed');
    expectProblem(await post([leg(source.id, 'debit', 5), leg(user.id, 'credit', 5)], { limit_claims: [{ key: 'daily', amount: 5, max: 4 }] }), 'limit_exceeded');

    expect((await api('PATCH', `${L()}/accounts/${user.id}`, { body: { status: 'frozen' } })).body.status).toBe('frozen');
    expectProblem(await post([leg(source.id, 'debit', 1), leg(user.id, 'credit', 1)]), 'account_frozen');
    const empty = await open();
    await api('PATCH', `${L()}/accounts/${empty.id}`, { body: { status: 'closed' } });
    expectProblem(await post([leg(source.id, 'debit', 1), leg(empty.id, 'credit', 1)]), 'account_closed');
    expectProblem(await api('PATCH', `${L()}/accounts/${empty.id}`, { body: { status: 'active' } }), 'account_closed');
  });

  it('opens a sharded account, sums its shards, raises them by PATCH, and refuses shards outside 1..32 with invalid', async () => {
    const source = await open({ floor: null });
    const merchant = await open({ owner_type: 'merchant', purpose: 'settlement', shards: 8 });
    expect(merchant).toMatchObject({ shards: 8, version: 0 });
    for (let i = 0; i < 6; i += 1) expect((await post([leg(source.id, 'debit', 10), leg(merchant.id, 'credit', 10)])).status).toBe(201);
    expect((await post([leg(merchant.id, 'debit', 60), leg(source.id, 'credit', 60)])).status).toBe(201);
    const raised = await api('PATCH', `${L()}/accounts/${merchant.id}`, { body: { shards: 16 } });
    expect(raised.body).toMatchObject({ shards: 16, balance: { posted: 0, available: 0 } });
    expect((await api('GET', `${L()}/accounts/${merchant.id}/entries?limit=100`)).body.data).toHaveLength(7);
    expectProblem(await api('PATCH', `${L()}/accounts/${merchant.id}`, { body: { shards: 4 } }), 'invalid');
    for (const shards of [0, 33, 2.5, '8']) {
      expectProblem(await api('POST', `${L()}/accounts`, { body: { owner_type: 'user', owner_id: uuidv7(), purpose: 'cash', commodity: 'USD', shards } }), 'invalid');
    }
  });

  it('raises an account from one shard to four like one opened with four: every credit lands, it freezes, unfreezes and closes', async () => {
    const source = await open({ floor: null });
    const merchant = await open({ owner_type: 'merchant', purpose: 'settlement' });
    // Credited first by a process that has not read the account yet (one that has spreads over the shards it remembers: none).
    expect((await api('PATCH', `${L()}/accounts/${merchant.id}`, { body: { shards: 4 } })).body).toMatchObject({ shards: 4, version: 1 });

    // Each transaction picks its shard: 31 of them reach all four, shard 0 included.
    const credits = await Promise.all(Array.from({ length: 31 }, () => post([leg(source.id, 'debit', 1), leg(merchant.id, 'credit', 1)])));
    expect(credits.map((c) => c.status)).toEqual(Array(31).fill(201));
    expect((await api('GET', `${L()}/accounts/${merchant.id}`)).body.balance).toMatchObject({ posted: 31, available: 31 });

    const frozen = await api('PATCH', `${L()}/accounts/${merchant.id}`, { body: { status: 'frozen' } });
    expect(frozen.status).toBe(200);
    expect(frozen.body.status).toBe('frozen');
    const refused = await Promise.all(Array.from({ length: 12 }, () => post([leg(source.id, 'debit', 1), leg(merchant.id, 'credit', 1)])));
    expect(refused.map((r) => r.body.code)).toEqual(Array(12).fill('account_frozen'));
    expect((await api('PATCH', `${L()}/accounts/${merchant.id}`, { body: { status: 'active' } })).body.status).toBe('active');

    expect((await post([leg(merchant.id, 'debit', 31), leg(source.id, 'credit', 31)])).status).toBe(201);
    const closed = await api('PATCH', `${L()}/accounts/${merchant.id}`, { body: { status: 'closed' } });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: 'closed', shards: 4, balance: { posted: 0 } });
  });

  it('reserves, posts a part, refuses posting more than reserved, and voids', async () => {
    const source = await open({ floor: null });
    const payer = await open();
    const merchant = await open({ owner_type: 'merchant', purpose: 'settlement' });
    await post([leg(source.id, 'debit', 1000), leg(payer.id, 'credit', 1000)]);
    const pending = await api('POST', `${L()}/pendings`, { body: { type: 'payment', legs: [leg(payer.id, 'debit', 800), leg(merchant.id, 'credit', 800)] }, key: uuidv7() });
    expect(pending.status).toBe(201);
    expectProblem(await post([leg(payer.id, 'debit', 801), leg(merchant.id, 'credit', 801)], { post_pending_id: pending.body.id }), 'post_exceeds_pending');
    const captured = await post([leg(payer.id, 'debit', 300), leg(merchant.id, 'credit', 300)], { post_pending_id: pending.body.id });
    expect(captured.status).toBe(201);
    expect((await api('GET', `${L()}/accounts/${payer.id}`)).body.balance).toEqual({ posted: 700, pending_debits: 0, pending_credits: 0, available: 700 });

    const hold = await api('POST', `${L()}/pendings`, { body: { type: 'payment', legs: [leg(payer.id, 'debit', 100), leg(merchant.id, 'credit', 100)] }, key: uuidv7() });
    const voided = await api('POST', `${L()}/pendings/${hold.body.id}/void`, { key: uuidv7() });
    expect(voided.status).toBe(200);
    expect(voided.body.status).toBe('voided');
    expectProblem(await api('POST', `${L()}/pendings/${hold.body.id}/void`, { key: uuidv7() }), 'conflict');
  });

  it('reverses once; the second reversal is conflict; a closed period refuses back-dated postings', async () => {
    const source = await open({ floor: null });
    const user = await open();
    const original = await post([leg(source.id, 'debit', 40), leg(user.id, 'credit', 40)]);
    const reversal = await api('POST', `${L()}/transactions/${original.body.id}/reverse`, { body: {}, key: uuidv7() });
    expect(reversal.status).toBe(201);
    expect(reversal.body.reverses_txn_id).toBe(original.body.id);
    expect((await api('GET', `${L()}/transactions/${original.body.id}`)).body.reversed_by).toBe(reversal.body.id);
    expectProblem(await api('POST', `${L()}/transactions/${original.body.id}/reverse`, { key: uuidv7() }), 'conflict');

    const closedThrough = new Date(Date.now() - 60_000).toISOString();
    const periodKey = uuidv7();
    const closed = await api('POST', `${L()}/periods`, { body: { closed_through: closedThrough }, key: periodKey });
    expect(closed.body.closed_through).toBe(closedThrough);
    // The key is honoured: a retry answers the first answer, another time under it is a reuse.
    const retried = await api('POST', `${L()}/periods`, { body: { closed_through: closedThrough }, key: periodKey });
    expect([retried.text, retried.headers.get('idempotent-replayed')]).toEqual([closed.text, 'true']);
    expectProblem(await api('POST', `${L()}/periods`, { body: { closed_through: new Date(Date.now() - 120_000).toISOString() }, key: periodKey }), 'idempotency_key_reuse');
    expect((await api('POST', `${L()}/periods`, { body: { closed_through: closedThrough } })).body.closed_through).toBe(closedThrough);
    expectProblem(await post([leg(source.id, 'debit', 1), leg(user.id, 'credit', 1)], { effective_at: new Date(Date.now() - 3600_000).toISOString() }), 'period_closed');
  });

  it('rolls balances up to zero per commodity and feeds committed transactions after a cursor', async () => {
    const rollup = await api('GET', `${L()}/rollup`);
    expect(rollup.status).toBe(200);
    expect(rollup.body.balanced).toBe(true);
    expect(rollup.body.rows.length).toBeGreaterThan(0);
    const first = await api('GET', `${L()}/events?limit=2`);
    expect(first.body.data).toHaveLength(2);
    const next = await api('GET', `${L()}/events?limit=2&cursor=${first.body.next_cursor}`);
    expect(next.body.data[0].id > first.body.data[1].id).toBe(true);
    const list = await api('GET', `${L()}/transactions?limit=3`);
    expect(list.body.data).toHaveLength(3);
    expect(list.body.data[0].id > list.body.data[2].id).toBe(true);
    const page2 = await api('GET', `${L()}/transactions?limit=3&cursor=${list.body.next_cursor}`);
    expect(page2.body.data[0].id < list.body.data[2].id).toBe(true);
    expectProblem(await api('GET', `${L()}/transactions?cursor=garbage`), 'invalid');
  });

  it("answers event_feed_blocked once an operator blocks the consumer's feed, and serves it again when unblocked", async () => {
    const store = createConsumerStore(localDocumentClient(platform.dynamodbEndpoint), platform.tables.ledger.name, systemClock, uuidv7);
    await store.setFeedBlocked(consumerName, true);
    expectProblem(await api('GET', `${L()}/events`), 'event_feed_blocked');
    expect((await api('GET', `${L()}/transactions?limit=1`)).status).toBe(200);
    await store.setFeedBlocked(consumerName, false);
    expect((await api('GET', `${L()}/events`)).status).toBe(200);
  });
});

describe('the event feed over HTTP', () => {
  type FeedPage = { data: { id: string }[]; has_more: boolean; next_cursor: string | null };

  /** A ledger of its own, so the feed holds exactly the transactions a test posts. */
  async function quietLedger() {
    const id = (await api('POST', '/v1/ledgers', { body: { name: 'feed', commodity: 'USD' } })).body.id as string;
    const account = async (floor: number | null) =>
      (await api('POST', `/v1/ledgers/${id}/accounts`, { body: { owner_type: 'user', owner_id: uuidv7(), purpose: 'cash', commodity: 'USD', floor } })).body.id as string;
    const [source, user] = [await account(null), await account(0)];
    const postOne = async () => {
      const posted = await api('POST', `/v1/ledgers/${id}/postings`, { body: { type: 'transfer', legs: [leg(source, 'debit', 1), leg(user, 'credit', 1)] }, key: uuidv7() });
      expect(posted.status).toBe(201);
      return posted.body.id as string;
    };
    const events = async (query: string): Promise<FeedPage> => {
      const answer = await api('GET', `/v1/ledgers/${id}/events${query}`);
      expect(answer.status).toBe(200);
      return answer.body as FeedPage;
    };
    return { postOne, events };
  }

  it('answers has_more true when a full page leaves more, and false on the page that ends the feed, even when it is full', async () => {
    const { postOne, events } = await quietLedger();
    const posted = [await postOne(), await postOne(), await postOne(), await postOne()];

    const first = await events('?limit=2');
    const second = await events(`?limit=2&cursor=${first.next_cursor}`);

    expect(first).toEqual({ data: [expect.objectContaining({ id: posted[0] }), expect.objectContaining({ id: posted[1] })], has_more: true, next_cursor: posted[1] });
    expect(second).toEqual({ data: [expect.objectContaining({ id: posted[2] }), expect.objectContaining({ id: posted[3] })], has_more: false, next_cursor: posted[3] });
  });

  it('ends a client that pages until has_more is false, having read every event once, in order', async () => {
    const { postOne, events } = await quietLedger();
    const posted: string[] = [];
    for (let n = 0; n < 5; n += 1) posted.push(await postOne());

    const read: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages += 1) {
      const page = await events(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      read.push(...page.data.map((event) => event.id));
      cursor = page.next_cursor;
      if (!page.has_more) break;
    }

    expect(read).toEqual(posted);
    expect(cursor).toBe(posted[4]);
  });

  it('keeps next_cursor at the end of the feed, and polling from it picks up transactions posted since', async () => {
    const { postOne, events } = await quietLedger();
    const before = await postOne();
    const end = await events('?limit=10');
    expect(end).toMatchObject({ has_more: false, next_cursor: before });

    const idle = await events(`?cursor=${end.next_cursor}`);
    expect(idle).toEqual({ data: [], has_more: false, next_cursor: before });

    const later = [await postOne(), await postOne()];
    const polled = await events(`?limit=1&cursor=${idle.next_cursor}`);
    const rest = await events(`?limit=1&cursor=${polled.next_cursor}`);
    expect([polled.data.map((event) => event.id), polled.has_more, polled.next_cursor]).toEqual([[later[0]], true, later[0]]);
    expect([rest.data.map((event) => event.id), rest.has_more, rest.next_cursor]).toEqual([[later[1]], false, later[1]]);
  });

  it('answers an empty feed read without a cursor with no events, has_more false and next_cursor null', async () => {
    const { events } = await quietLedger();

    expect(await events('')).toEqual({ data: [], has_more: false, next_cursor: null });
  });
});
