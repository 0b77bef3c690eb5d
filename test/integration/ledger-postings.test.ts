import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/kernel/errors';
import { ManualClock } from '../../shared/kernel/clock';
import { ledgerFixture, leg } from '../support/ledger';
import { pause } from '../support/time';
import { QueryCommand, type DocumentClient } from '../../shared/aws/dynamodb';

type Fixture = Awaited<ReturnType<typeof ledgerFixture>>;
let f: Fixture;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  f = await ledgerFixture({ clock });
});

/** The code a posting was refused with, or `accepted`. */
const outcomeCode = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  return 'accepted';
};

describe('postings', () => {
  it('moves money as a balanced posting and keeps credits minus debits per account', async () => {
    const source = await f.open({ floor: null, owner_type: 'tenant', purpose: 'funding' });
    const user = await f.open();
    const posted = await f.transfer(source.id, user.id, 1500);
    expect(posted.status).toBe(201);
    expect(posted.json.legs).toEqual([
      expect.objectContaining({ account_id: source.id, direction: 'debit', amount: 1500, owner_type: 'tenant', purpose: 'funding' }),
      expect.objectContaining({ account_id: user.id, direction: 'credit', amount: 1500, owner_type: 'user', purpose: 'cash' }),
    ]);
    expect(await f.balance(source.id)).toEqual({ posted: -1500, pending_debits: 0, pending_credits: 0, available: -1500 });
    expect(await f.balance(user.id)).toEqual({ posted: 1500, pending_debits: 0, pending_credits: 0, available: 1500 });
    const entries = await f.service.listEntries(f.consumerId, f.ledgerId, user.id, undefined, 10);
    expect(entries.data).toEqual([expect.objectContaining({ transaction_id: posted.json.id, direction: 'credit', amount: 1500 })]);
  });

  it('refuses a debit below the floor with insufficient_funds and changes nothing', async () => {
    const a = await f.open();
    const b = await f.open();
    const refused = await f.transfer(a.id, b.id, 1);
    expect(refused.status).toBe(422);
    expect(refused.json.code).toBe('insufficient_funds');
    expect(await f.balance(a.id)).toMatchObject({ posted: 0 });
    expect((await f.service.getAccount(f.consumerId, f.ledgerId, a.id)).version).toBe(0);
  });

  it('refuses unbalanced legs', async () => {
    const a = await f.open({ floor: null });
    const b = await f.open();
    const body = { type: 'transfer', legs: [leg(a.id, 'debit', 10), leg(b.id, 'credit', 9)] };
    expect(await outcomeCode(f.service.post(f.consumerId, f.ledgerId, body, f.idem('createPosting', body)))).toBe('unbalanced');
  });

  it('replays a retried posting byte for byte and posts once; another body under the key is refused', async () => {
    const a = await f.open({ floor: null });
    const b = await f.open();
    const first = await f.transfer(a.id, b.id, 700, {}, 'same-key');
    const again = await f.transfer(a.id, b.id, 700, {}, 'same-key');
    expect(again.body).toBe(first.body);
    expect(again.replayed).toBe(true);
    expect(await f.balance(b.id)).toMatchObject({ posted: 700 });
    expect(await outcomeCode(f.transfer(a.id, b.id, 701, {}, 'same-key'))).toBe('idempotency_key_reuse');
  });

  it('replays the original bytes from the stored transaction, after a reversal and whatever the metadata order', async () => {
    const a = await f.open({ floor: null });
    const b = await f.open();
    const metadata = { zeta: 'z', alpha: 'a', 'é': 'ü \u{1F600}', '10': 'ten', '9': 'nine' };
    const first = await f.transfer(a.id, b.id, 300, { metadata }, 'ordered-key');
    const reversal = await f.service.reverse(f.consumerId, f.ledgerId, first.json.id, undefined, f.idem('reverseTransaction', 'r'));
    expect(reversal.status).toBe(201);
    const again = await f.transfer(a.id, b.id, 300, { metadata: Object.fromEntries(Object.entries(metadata).reverse()) }, 'ordered-key');
    expect(again.replayed).toBe(true);
    expect(again.body).toBe(first.body);
    expect(first.json.reversed_by).toBeNull();
    expect(first.json.metadata).toEqual(metadata);
    const stored = await f.service.idempotencyRecord(f.consumerId, f.ledgerId, 'ordered-key');
    expect(JSON.stringify(stored.response)).toBe(first.body);
  });

  it('replays a reservation as reserved after it was posted, and a void as voided', async () => {
    const payer = await f.open();
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement' });
    const source = await f.open({ floor: null });
    await f.transfer(source.id, payer.id, 100);
    const body = { type: 'payment', metadata: { b: '2', a: '1' }, legs: [leg(payer.id, 'debit', 60), leg(merchant.id, 'credit', 60)] };
    const reserved = await f.service.reserve(f.consumerId, f.ledgerId, body, f.idem('createPending', body, 'reserve-key'));
    const pendingId = (JSON.parse(reserved.body) as { id: string }).id;
    const capture = { type: 'capture', post_pending_id: pendingId };
    expect((await f.service.post(f.consumerId, f.ledgerId, capture, f.idem('createPosting', capture))).status).toBe(201);
    const again = await f.service.reserve(f.consumerId, f.ledgerId, body, f.idem('createPending', body, 'reserve-key'));
    expect(again).toEqual({ ...reserved, replayed: true });

    const hold = { type: 'hold', legs: [leg(payer.id, 'debit', 10), leg(merchant.id, 'credit', 10)] };
    const held = JSON.parse((await f.service.reserve(f.consumerId, f.ledgerId, hold, f.idem('createPending', hold))).body) as { id: string };
    const voided = await f.service.voidPending(f.consumerId, f.ledgerId, held.id, f.idem('voidPending', held.id, 'void-key'));
    const voidedAgain = await f.service.voidPending(f.consumerId, f.ledgerId, held.id, f.idem('voidPending', held.id, 'void-key'));
    expect(voidedAgain).toEqual({ ...voided, replayed: true });
    expect(JSON.parse(voided.body)).toMatchObject({ status: 'voided', transaction_id: null });
  });

  it('posts once when one key arrives 20 times at once, and every answer is the original', async () => {
    const a = await f.open({ floor: null });
    const b = await f.open();
    const answers = await Promise.all(Array.from({ length: 20 }, () => f.transfer(a.id, b.id, 50, {}, 'burst-key')));
    expect(new Set(answers.map((x) => x.body)).size).toBe(1);
    expect(answers.every((x) => x.status === 201)).toBe(true);
    expect(await f.balance(b.id)).toMatchObject({ posted: 50 });
  });

  it('enforces frozen and closed accounts, version_is and min_available_after', async () => {
    const source = await f.open({ floor: null });
    const user = await f.open();
    await f.transfer(source.id, user.id, 100);
    const version = (await f.service.getAccount(f.consumerId, f.ledgerId, user.id)).version;
    expect((await f.transfer(user.id, source.id, 10, { version_is: [{ account_id: user.id, version: version + 1 }] })).json.code).toBe('precondition_failed');
    expect((await f.transfer(user.id, source.id, 10, { min_available_after: [{ account_id: user.id, amount: 95 }] })).json.code).toBe('precondition_failed');
    expect((await f.transfer(user.id, source.id, 10, { version_is: [{ account_id: user.id, version }], min_available_after: [{ account_id: user.id, amount: 90 }] })).status).toBe(201);

    await f.service.updateAccount(f.consumerId, f.ledgerId, user.id, { status: 'frozen' });
    expect((await f.transfer(source.id, user.id, 10)).json.code).toBe('account_frozen');
    await f.service.updateAccount(f.consumerId, f.ledgerId, user.id, { status: 'active' });
    const empty = await f.open();
    await f.service.updateAccount(f.consumerId, f.ledgerId, empty.id, { status: 'closed' });
    expect((await f.transfer(source.id, empty.id, 10)).json.code).toBe('account_closed');
    expect(await outcomeCode(f.service.updateAccount(f.consumerId, f.ledgerId, user.id, { status: 'closed' }))).toBe('invalid');
  });

  it('lets a negative floor act as a credit line, and refuses raising a floor above the balance', async () => {
    const source = await f.open({ floor: null });
    const business = await f.open({ floor: -500 });
    expect((await f.transfer(business.id, source.id, 500)).status).toBe(201);
    expect((await f.transfer(business.id, source.id, 1)).json.code).toBe('insufficient_funds');
    expect(await outcomeCode(f.service.updateAccount(f.consumerId, f.ledgerId, business.id, { floor: -100 }))).toBe('insufficient_funds');
    const widened = await f.service.updateAccount(f.consumerId, f.ledgerId, business.id, { floor: -800 });
    expect(widened.floor).toBe(-800);
    expect((await f.transfer(business.id, source.id, 300)).status).toBe(201);
  });

  it('consumes limit claims with the money and refuses the one that would pass the max', async () => {
    const source = await f.open({ floor: null });
    const user = await f.open();
    const claim = (amount: number) => ({ limit_claims: [{ key: 'user:1:daily', amount, max: 1000 }] });
    expect((await f.transfer(source.id, user.id, 600, claim(600))).status).toBe(201);
    expect((await f.transfer(source.id, user.id, 401, claim(401))).json.code).toBe('limit_exceeded');
    expect(await f.balance(user.id)).toMatchObject({ posted: 600 });
    expect((await f.transfer(source.id, user.id, 400, claim(400))).status).toBe(201);
  });

  it('refuses postings and reversals effective in a closed period', async () => {
    const source = await f.open({ floor: null });
    const user = await f.open();
    const early = await f.transfer(source.id, user.id, 10, { effective_at: new Date(clock.now().getTime() - 3600_000).toISOString() });
    expect(early.status).toBe(201);
    expect(await outcomeCode(f.service.closePeriod(f.consumerId, f.ledgerId, new Date(clock.now().getTime() - 59_000).toISOString()))).toBe('invalid');
    await f.service.closePeriod(f.consumerId, f.ledgerId, new Date(clock.now().getTime() - 60_000).toISOString());
    expect((await f.transfer(source.id, user.id, 10, { effective_at: new Date(clock.now().getTime() - 120_000).toISOString() })).json.code).toBe('period_closed');
    expect((await f.transfer(source.id, user.id, 10)).status).toBe(201);
    const body = { effective_at: new Date(clock.now().getTime() - 120_000).toISOString() };
    const reversal = await f.service.reverse(f.consumerId, f.ledgerId, early.json.id, body, f.idem('reverseTransaction', body));
    expect(JSON.parse(reversal.body).code).toBe('period_closed');
  });
});

describe('exchange groups and reversals', () => {
  it('posts two commodities balanced each on its own with an exchange id, which cannot be reversed alone', async () => {
    const userPoints = await f.open({ commodity: 'POINTS', purpose: 'points' });
    const issuer = await f.open({ commodity: 'POINTS', purpose: 'points_issued', floor: null, owner_type: 'tenant' });
    const userCash = await f.open();
    const funding = await f.open({ floor: null, owner_type: 'tenant', purpose: 'rewards_funding' });
    await f.service.post(f.consumerId, f.ledgerId, { type: 'accrual', legs: [leg(issuer.id, 'debit', 1000, 'POINTS'), leg(userPoints.id, 'credit', 1000, 'POINTS')] }, f.idem('createPosting', 1));
    const body = { type: 'points_conversion', legs: [leg(userPoints.id, 'debit', 1000, 'POINTS'), leg(issuer.id, 'credit', 1000, 'POINTS'), leg(funding.id, 'debit', 250), leg(userCash.id, 'credit', 250)] };
    const exchange = JSON.parse((await f.service.post(f.consumerId, f.ledgerId, body, f.idem('createPosting', body))).body);
    expect(exchange.exchange_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await f.balance(userCash.id)).toMatchObject({ posted: 250 });
    expect(await outcomeCode(f.service.reverse(f.consumerId, f.ledgerId, exchange.id, undefined, f.idem('reverseTransaction', 2)))).toBe('invalid');
    const mixed = { type: 'x', legs: [leg(userPoints.id, 'debit', 1, 'USD'), leg(userCash.id, 'credit', 1)] };
    expect(await outcomeCode(f.service.post(f.consumerId, f.ledgerId, mixed, f.idem('createPosting', mixed)))).toBe('invalid');
  });

  it('reverses with a linked mirror; a second reversal is conflict, and of two at once exactly one wins', async () => {
    const source = await f.open({ floor: null });
    const user = await f.open();
    const original = await f.transfer(source.id, user.id, 300);
    const reversal = JSON.parse((await f.service.reverse(f.consumerId, f.ledgerId, original.json.id, undefined, f.idem('reverseTransaction', 'a'))).body);
    expect(reversal.reverses_txn_id).toBe(original.json.id);
    expect(reversal.legs.map((l: { direction: string }) => l.direction)).toEqual(['credit', 'debit']);
    expect((await f.service.getTransaction(f.consumerId, f.ledgerId, original.json.id)).reversed_by).toBe(reversal.id);
    expect(await f.balance(user.id)).toMatchObject({ posted: 0 });
    const second = await f.service.reverse(f.consumerId, f.ledgerId, original.json.id, undefined, f.idem('reverseTransaction', 'b'));
    expect(JSON.parse(second.body).code).toBe('conflict');
    expect(await outcomeCode(f.service.reverse(f.consumerId, f.ledgerId, reversal.id, undefined, f.idem('reverseTransaction', 'c')))).toBe('invalid');

    const another = await f.transfer(source.id, user.id, 40);
    const racers = await Promise.all([1, 2].map((n) => f.service.reverse(f.consumerId, f.ledgerId, another.json.id, undefined, f.idem('reverseTransaction', `race-${n}`))));
    expect(racers.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await f.balance(user.id)).toMatchObject({ posted: 0 });
  });
});

describe('pendings', () => {
  it('reserves, posts part with the rest released, and refuses posting more than reserved', async () => {
    const payer = await f.open();
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement' });
    const revenue = await f.open({ owner_type: 'tenant', purpose: 'revenue' });
    const source = await f.open({ floor: null });
    await f.transfer(source.id, payer.id, 1000);
    const reserveBody = { type: 'payment', legs: [leg(payer.id, 'debit', 600), leg(merchant.id, 'credit', 600)] };
    const pending = JSON.parse((await f.service.reserve(f.consumerId, f.ledgerId, reserveBody, f.idem('createPending', reserveBody))).body);
    expect(await f.balance(payer.id)).toEqual({ posted: 1000, pending_debits: 600, pending_credits: 0, available: 400 });
    expect((await f.transfer(payer.id, source.id, 401)).json.code).toBe('insufficient_funds');

    const over = { type: 'capture', post_pending_id: pending.id, legs: [leg(payer.id, 'debit', 601), leg(merchant.id, 'credit', 601)] };
    expect(JSON.parse((await f.service.post(f.consumerId, f.ledgerId, over, f.idem('createPosting', over))).body).code).toBe('post_exceeds_pending');

    const capture = { type: 'capture', post_pending_id: pending.id, legs: [leg(payer.id, 'debit', 400), leg(merchant.id, 'credit', 390), leg(revenue.id, 'credit', 10)] };
    const posted = JSON.parse((await f.service.post(f.consumerId, f.ledgerId, capture, f.idem('createPosting', capture))).body);
    expect(posted.pending_id).toBe(pending.id);
    expect(await f.balance(payer.id)).toEqual({ posted: 600, pending_debits: 0, pending_credits: 0, available: 600 });
    expect(await f.balance(merchant.id)).toEqual({ posted: 390, pending_debits: 0, pending_credits: 0, available: 390 });
    expect((await f.service.getPending(f.consumerId, f.ledgerId, pending.id)).status).toBe('posted');
    expect(JSON.parse((await f.service.voidPending(f.consumerId, f.ledgerId, pending.id, f.idem('voidPending', 'v'))).body).code).toBe('conflict');
  });

  it('refuses a reservation that would leave less than min_available_after, and holds nothing', async () => {
    const merchant = await f.open({ owner_type: 'merchant', purpose: 'settlement' });
    const clearing = await f.open({ floor: null, owner_type: 'tenant', purpose: 'payout_clearing' });
    const source = await f.open({ floor: null });
    await f.transfer(source.id, merchant.id, 1000);
    const hold = (amount: number) => ({ type: 'payout', legs: [leg(merchant.id, 'debit', amount), leg(clearing.id, 'credit', amount)], min_available_after: [{ account_id: merchant.id, amount: 300 }] });

    const refused = JSON.parse((await f.service.reserve(f.consumerId, f.ledgerId, hold(701), f.idem('createPending', hold(701)))).body);
    expect(refused.code).toBe('precondition_failed');
    expect(await f.balance(merchant.id)).toEqual({ posted: 1000, pending_debits: 0, pending_credits: 0, available: 1000 });
    const held = JSON.parse((await f.service.reserve(f.consumerId, f.ledgerId, hold(700), f.idem('createPending', hold(700)))).body);
    expect(held.status).toBe('pending');
    expect(await f.balance(merchant.id)).toEqual({ posted: 1000, pending_debits: 700, pending_credits: 0, available: 300 });
  });

  it('voids a reservation, and expires one after its time with the scheduled sweep', async () => {
    const payer = await f.open();
    const merchant = await f.open();
    const source = await f.open({ floor: null });
    await f.transfer(source.id, payer.id, 100);
    const body = { type: 'hold', legs: [leg(payer.id, 'debit', 100), leg(merchant.id, 'credit', 100)] };
    const voidable = JSON.parse((await f.service.reserve(f.consumerId, f.ledgerId, body, f.idem('createPending', body))).body);
    const voided = JSON.parse((await f.service.voidPending(f.consumerId, f.ledgerId, voidable.id, f.idem('voidPending', 'x'))).body);
    expect(voided.status).toBe('voided');
    expect(await f.balance(payer.id)).toMatchObject({ available: 100, pending_debits: 0 });

    const expiring = { ...body, expires_at: new Date(clock.now().getTime() + 60_000).toISOString() };
    const held = JSON.parse((await f.service.reserve(f.consumerId, f.ledgerId, expiring, f.idem('createPending', expiring))).body);
    expect(await f.service.expirePendings()).toBe(0);
    clock.advance(61_000);
    const capture = { type: 'capture', post_pending_id: held.id };
    expect(JSON.parse((await f.service.post(f.consumerId, f.ledgerId, capture, f.idem('createPosting', capture))).body).code).toBe('conflict');
    expect(await f.service.expirePendings()).toBeGreaterThanOrEqual(1);
    expect((await f.service.getPending(f.consumerId, f.ledgerId, held.id)).status).toBe('expired');
    expect(await f.balance(payer.id)).toMatchObject({ available: 100, pending_debits: 0 });
    expect(await f.service.expirePendings()).toBe(0);
  });
});

describe('rollup and feed', () => {
  it('nets every commodity to zero and lists committed transactions in order after a cursor', async () => {
    const rollup = await f.service.rollup(f.consumerId, f.ledgerId);
    expect(rollup.balanced).toBe(true);
    expect(rollup.commodities.map((c) => c.commodity).sort()).toEqual(['POINTS', 'USD']);
    const first = await f.service.feed(f.consumerId, f.ledgerId, undefined, 3);
    expect(first.data).toHaveLength(3);
    const next = await f.service.feed(f.consumerId, f.ledgerId, first.next_cursor!, 3);
    expect(next.data[0]!.id > first.data[2]!.id).toBe(true);
  });

  it('answers has_more false for a page cut by the settle window; what was held back is read by polling from next_cursor', async () => {
    // The window's end is the clock: ids taken after it are younger than the window.
    const window = new ManualClock(new Date());
    const g = await ledgerFixture({ clock: window });
    const source = await g.open({ floor: null });
    const user = await g.open();
    const settled = [(await g.transfer(source.id, user.id, 1)).json.id, (await g.transfer(source.id, user.id, 1)).json.id];
    await pause(3);
    window.set(new Date());
    await pause(3);
    const young = (await g.transfer(source.id, user.id, 1)).json.id;

    const full = await g.service.feed(g.consumerId, g.ledgerId, undefined, 1);
    const cut = await g.service.feed(g.consumerId, g.ledgerId, undefined, 2);
    await pause(3);
    window.set(new Date());
    const polled = await g.service.feed(g.consumerId, g.ledgerId, cut.next_cursor!, 2);

    expect([full.data.map((event) => event.id), full.has_more]).toEqual([[settled[0]], true]);
    expect([cut.data.map((event) => event.id), cut.has_more, cut.next_cursor]).toEqual([settled, false, settled[1]]);
    expect([polled.data.map((event) => event.id), polled.has_more, polled.next_cursor]).toEqual([[young], false, young]);
  });

  it('answers has_more true for a page cut by the merge\'s request budget, and a reader paging until false reads every event once', async () => {
    // DynamoDB may answer a query with fewer items than asked (its 1 MB page): here two items per
    // query (the first the one a partition stopped at), so the 16 partitions' merge spends its
    // request budget before the page is full.
    const twoPerQuery = (client: DocumentClient): DocumentClient => ({
      send: (command) => client.send(command instanceof QueryCommand ? new QueryCommand({ ...command.input, Limit: 2 }) : command) as never,
    });
    const g = await ledgerFixture({ wrap: twoPerQuery });
    const source = await g.open({ floor: null });
    const user = await g.open();
    const posted: string[] = [];
    for (let n = 0; n < 60; n += 1) posted.push((await g.transfer(source.id, user.id, 1)).json.id);

    const first = await g.service.feed(g.consumerId, g.ledgerId, undefined, 100);
    const read = first.data.map((event) => event.id);
    let page = first;
    for (let pages = 0; page.has_more && pages < 20; pages += 1) {
      page = await g.service.feed(g.consumerId, g.ledgerId, page.next_cursor!, 100);
      read.push(...page.data.map((event) => event.id));
    }

    expect([first.data.length < 60, first.has_more]).toEqual([true, true]);
    expect([read, page.has_more, page.next_cursor]).toEqual([posted, false, posted[59]]);
  });
});
