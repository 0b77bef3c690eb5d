import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DocumentClient } from '../../shared/aws/dynamodb';
import { describe, expect, it } from 'vitest';
import { ledgerFixture } from '../support/ledger';

const fixtures: Awaited<ReturnType<typeof ledgerFixture>>[] = [];

/** Deterministic pseudo-random numbers, so a failure replays the same schedule. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

describe('concurrent postings', () => {
  it('keeps 200 concurrent postings among 10 floored accounts within their floors, netting to zero', async () => {
    const f = await ledgerFixture();
    fixtures.push(f);
    const source = await f.open({ floor: null, owner_type: 'tenant', purpose: 'funding' });
    const accounts = await Promise.all(Array.from({ length: 10 }, (_, i) => f.open({ floor: i % 3 === 0 ? -200 : 0 })));
    for (const account of accounts) await f.transfer(source.id, account.id, 500);

    const next = random(42);
    const attempts = Array.from({ length: 200 }, () => {
      const from = accounts[Math.floor(next() * 10)]!;
      let to = accounts[Math.floor(next() * 10)]!;
      if (to.id === from.id) to = accounts[(accounts.indexOf(from) + 1) % 10]!;
      return { from: from.id, to: to.id, amount: 1 + Math.floor(next() * 400) };
    });
    // As a client sends them: a retryable 503 (200 postings queue on one client's sockets and on
    // DynamoDB Local's locks) is sent again under the same key, so each still moves money once.
    const results = await Promise.all(attempts.map((a) => f.transferUntilFinal(a.from, a.to, a.amount)));

    const expected = new Map(accounts.map((a) => [a.id, 500]));
    results.forEach((result, i) => {
      const attempt = attempts[i]!;
      if (result.status === 201) {
        expected.set(attempt.from, expected.get(attempt.from)! - attempt.amount);
        expected.set(attempt.to, expected.get(attempt.to)! + attempt.amount);
      } else {
        expect(result.status).toBe(422);
        expect(result.json.code).toBe('insufficient_funds');
      }
    });
    expect(results.filter((r) => r.status === 201).length).toBeGreaterThan(50);
    for (const account of accounts) {
      const balance = await f.balance(account.id);
      expect(balance.posted).toBe(expected.get(account.id));
      expect(balance.posted).toBeGreaterThanOrEqual(account.floor ?? 0);
    }
    const rollup = await f.service.rollup(f.consumerId, f.ledgerId);
    expect(rollup.balanced).toBe(true);
  });

  it('retries injected transaction conflicts and throttling with backoff, losing and doubling nothing', async () => {
    let injectedConflicts = 0;
    let injectedThrottles = 0;
    const next = random(7);
    // DynamoDB Local serializes transactions and never cancels one for a conflict or for an item's
    // throttling as the real service does under contention; this wrapper makes it, before the
    // request is sent (above the SDK client: the cancellations the store itself retries).
    const cancelled = (items: readonly unknown[], code: string) =>
      new TransactionCanceledException({
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${code}]`,
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: items.map((_, i) => ({ Code: i === items.length - 1 ? code : 'None' })),
      });
    const flaky = (client: DocumentClient): DocumentClient => ({
        send: async (command) => {
          if (command instanceof TransactWriteCommand) {
            const roll = next();
            const items = command.input.TransactItems ?? [];
            if (roll < 0.3) {
              injectedConflicts += 1;
              throw cancelled(items, 'TransactionConflict');
            }
            if (roll < 0.4) {
              injectedThrottles += 1;
              throw cancelled(items, 'ThrottlingError');
            }
          }
          return client.send(command);
        },
      });
    const f = await ledgerFixture({ wrap: flaky });
    fixtures.push(f);
    const source = await f.open({ floor: null });
    const sink = await f.open();
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => f.transfer(source.id, sink.id, i + 1)));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(injectedConflicts).toBeGreaterThan(5);
    expect(injectedThrottles).toBeGreaterThan(1);
    expect(await f.balance(sink.id)).toMatchObject({ posted: (60 * 61) / 2 });
    const listed = await f.service.listTransactions(f.consumerId, f.ledgerId, { limit: 100 });
    expect(listed.data.filter((t) => t.legs.some((l) => l.account_id === sink.id))).toHaveLength(60);
  });
});
