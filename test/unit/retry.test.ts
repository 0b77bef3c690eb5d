import fc from 'fast-check';
import * as z from '../../shared/kernel/zod';
import { workerContext } from '../../local/drivers/context';
import { createHttpHandler } from '../../shared/http/handler';
import { defineRoute } from '../../shared/http/route';
import { observed } from '../../shared/kernel/observability';
import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  currentDeadline,
  DEADLINE_MARGIN_MS,
  invocationDeadline,
  POLICIES,
  retrying,
  transientAwsFailure,
  withDeadline,
  withInvocationDeadline,
  type RetryPolicy,
} from '../../shared/kernel/retry';

/**
 * The one retry policy (shared/kernel/retry.ts) on a clock of the test's: every sleep moves it by
 * what was slept, so the deadline is judged without waiting and without reading the time.
 */
function testClock(start = 0) {
  const state = { now: start, slept: [] as number[] };
  return {
    state,
    timing: {
      now: () => state.now,
      sleep: async (ms: number) => {
        state.slept.push(ms);
        state.now += ms;
      },
    },
  };
}

class Busy extends Error {}
const failing = (times: number, error: unknown = new Busy()) => {
  let calls = 0;
  const attempt = async (n: number) => {
    calls += 1;
    if (n <= times) throw error;
    return `done after ${n}`;
  };
  return { attempt, calls: () => calls };
};
const exhausted = () => new Error('exhausted');
const retryBusy = { retryable: (error: unknown) => error instanceof Busy, exhausted };

describe('backoff', () => {
  it('is full jitter: between 0 and min(cap, base * 2^attempt), whatever the randomness', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        for (const policy of Object.values(POLICIES) as RetryPolicy[]) {
          const delay = backoffMs(policy, attempt, () => random);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(Math.min(policy.capMs, policy.baseMs * 2 ** attempt));
        }
      }),
    );
  });

  it('doubles its ceiling each attempt until the cap', () => {
    const top = (attempt: number) => backoffMs(POLICIES.dynamodb, attempt, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(top)).toEqual([20, 40, 80, 160, 320, 640, 1_000, 1_000]);
  });

  it('starts from the overloaded base after a throttle or a lost answer, under the same cap', () => {
    const top = (attempt: number) => backoffMs(POLICIES.dynamodb, attempt, () => 1, true);
    expect([1, 2, 3, 4].map(top)).toEqual([200, 400, 800, 1_000]);
  });
});

describe('retrying', () => {
  it('answers the first success, sleeping a backoff between failed attempts', async () => {
    const clock = testClock();
    const op = failing(2);

    await expect(retrying(POLICIES.dynamodb, op.attempt, { ...retryBusy, timing: { ...clock.timing, random: () => 1 } })).resolves.toBe('done after 3');
    expect(clock.state.slept).toEqual([20, 40]);
  });

  it('makes at most the policy\'s attempts, then throws what `exhausted` makes of the last failure', async () => {
    const clock = testClock();
    const op = failing(Number.POSITIVE_INFINITY);
    const last: unknown[] = [];

    const error = await retrying(POLICIES.dynamodb, op.attempt, { ...retryBusy, exhausted: (e) => (last.push(e), exhausted()), timing: clock.timing }).catch((e: unknown) => e);

    expect(error).toEqual(new Error('exhausted'));
    expect(op.calls()).toBe(POLICIES.dynamodb.attempts);
    expect(last[0]).toBeInstanceOf(Busy);
    expect(clock.state.slept).toHaveLength(POLICIES.dynamodb.attempts - 1);
  });

  it('throws a failure it does not retry as it came, after one attempt', async () => {
    const clock = testClock();
    const refusal = new Error('a failed condition');
    const op = failing(1, refusal);

    await expect(retrying(POLICIES.dynamodb, op.attempt, { ...retryBusy, timing: clock.timing })).rejects.toBe(refusal);
    expect(op.calls()).toBe(1);
    expect(clock.state.slept).toEqual([]);
  });

  it('stops before a backoff would reach the deadline in force, and never sleeps past it', async () => {
    const clock = testClock(1_000);
    const op = failing(Number.POSITIVE_INFINITY);

    const error = await withDeadline(1_100, () => retrying(POLICIES.dynamodb, op.attempt, { ...retryBusy, timing: { ...clock.timing, random: () => 1 } })).catch((e: unknown) => e);

    expect(error).toEqual(new Error('exhausted'));
    // 20 + 40 = 60 ms slept; the third backoff (80) would end at 1 140, past 1 100.
    expect(clock.state.slept).toEqual([20, 40]);
    expect(op.calls()).toBe(3);
    expect(clock.state.now).toBeLessThanOrEqual(1_100);
  });

  it('backs off from the overloaded base when the failure says so', async () => {
    const clock = testClock();
    const op = failing(2);
    await retrying(POLICIES.dynamodb, op.attempt, { ...retryBusy, overloaded: (error) => error instanceof Busy, timing: { ...clock.timing, random: () => 1 } });
    expect(clock.state.slept).toEqual([200, 400]);
  });

  it('takes the earlier of its own deadline and the one in force', async () => {
    for (const [outer, own] of [[1_050, 2_000], [2_000, 1_050]] as const) {
      const clock = testClock(1_000);
      const op = failing(Number.POSITIVE_INFINITY);
      await withDeadline(outer, () => retrying(POLICIES.dynamodb, op.attempt, { ...retryBusy, deadlineAt: own, timing: { ...clock.timing, random: () => 1 } })).catch(() => undefined);
      expect(clock.state.slept).toEqual([20]);
    }
  });

  it('without a deadline, is bounded by its attempts only', async () => {
    const clock = testClock();
    const op = failing(POLICIES.contended.attempts - 1);
    expect(currentDeadline()).toBeUndefined();

    await expect(retrying(POLICIES.contended, op.attempt, { ...retryBusy, timing: { ...clock.timing, random: () => 1 } })).resolves.toBe(`done after ${POLICIES.contended.attempts}`);
    expect(clock.state.now).toBeGreaterThan(10_000);
  });
});

describe('the deadline', () => {
  it('is the invocation\'s remaining time less the margin, on the retries\' clock', () => {
    expect(invocationDeadline({ getRemainingTimeInMillis: () => 10_000 }, () => 500)).toBe(500 + 10_000 - DEADLINE_MARGIN_MS);
    expect(invocationDeadline(undefined)).toBeUndefined();
    expect(invocationDeadline({})).toBeUndefined();
  });

  it('holds for everything the entry point awaits, and only there', async () => {
    const seen = await withInvocationDeadline({ getRemainingTimeInMillis: () => 5_000 }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentDeadline();
    });
    expect(seen).toBeGreaterThan(performance.now());
    expect(currentDeadline()).toBeUndefined();
  });

  it('is never extended by an inner, later one', () => {
    expect(withDeadline(100, () => withDeadline(200, currentDeadline))).toBe(100);
    expect(withDeadline(200, () => withDeadline(100, currentDeadline))).toBe(100);
  });

  it('keeps concurrent invocations apart (the embedded platform runs many in one process)', async () => {
    const read = (deadline: number) =>
      withDeadline(deadline, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return currentDeadline();
      });
    expect(await Promise.all([read(1), read(2), read(3)])).toEqual([1, 2, 3]);
  });
});

describe('what is retried', () => {
  const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(name), { name, ...extra });

  it('throttling of a request, or of an item of a transaction', () => {
    for (const name of ['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'TransactionInProgressException']) {
      expect(transientAwsFailure(named(name))).toBe('throttled');
    }
    expect(transientAwsFailure(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }] }))).toBe('throttled');
    expect(transientAwsFailure(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ProvisionedThroughputExceeded' }] }))).toBe('throttled');
  });

  it('a conflict with another transaction', () => {
    expect(transientAwsFailure(named('TransactionConflictException'))).toBe('conflict');
    expect(transientAwsFailure(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }] }))).toBe('conflict');
  });

  it('no answer: timeouts, dropped connections, 5xx', () => {
    expect(transientAwsFailure(named('TimeoutError'))).toBe('lost');
    expect(transientAwsFailure(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe('lost');
    expect(transientAwsFailure(named('InternalServerError', { $metadata: { httpStatusCode: 500 } }))).toBe('lost');
    expect(transientAwsFailure(named('SomethingElse', { $metadata: { httpStatusCode: 503 } }))).toBe('lost');
  });

  it('never an answer: a failed condition, a validation error, a cancellation for anything else, an unknown error', () => {
    expect(transientAwsFailure(named('ConditionalCheckFailedException', { $metadata: { httpStatusCode: 400 } }))).toBeUndefined();
    expect(transientAwsFailure(named('ValidationException', { $metadata: { httpStatusCode: 400 } }))).toBeUndefined();
    expect(transientAwsFailure(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'TransactionConflict' }] }))).toBeUndefined();
    expect(transientAwsFailure(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ValidationError' }] }))).toBeUndefined();
    expect(transientAwsFailure(new Error('boom'))).toBeUndefined();
    expect(transientAwsFailure(undefined)).toBeUndefined();
  });
});

describe('the entry points carry the invocation\'s deadline to the retries', () => {
  // A remaining time so long that no machine's slowness moves the bounds below (nothing here measures time).
  const REMAINING = 1e9;
  const context = { ...workerContext('deadline-test'), getRemainingTimeInMillis: () => REMAINING };
  /** What is left before the deadline in force, as code under the entry point sees it. */
  const left = () => Math.round((currentDeadline() ?? Number.NaN) - performance.now());

  it('a worker (`observed`)', async () => {
    const seen = await observed(async () => left())({}, context);
    expect(seen).toBeGreaterThan(REMAINING - DEADLINE_MARGIN_MS - 1e6);
    expect(seen).toBeLessThanOrEqual(REMAINING - DEADLINE_MARGIN_MS);
  });

  it('an HTTP route (the handler factory), for its function', async () => {
    const route = defineRoute({
      operationId: 'testDeadline',
      method: 'GET',
      path: '/v1/test/deadline',
      api: 'wallet',
      handler: 'test/deadline',
      summary: 'deadline',
      tags: ['test'],
      access: 'public',
      request: {},
      response: { status: 200, body: z.object({ left: z.int() }), description: 'what is left' },
      errors: [],
      tables: {},
    });
    const handler = createHttpHandler(route, async () => ({ body: { left: left() } }));
    const event = { httpMethod: 'GET', path: '/v1/test/deadline', headers: {}, body: null, isBase64Encoded: false, pathParameters: null, queryStringParameters: null, requestContext: { requestId: 'deadline-test' } };

    const response = await handler(event as never, context);

    expect(response.statusCode, response.body).toBe(200);
    const seen = (JSON.parse(response.body) as { left: number }).left;
    expect(seen).toBeGreaterThan(REMAINING - DEADLINE_MARGIN_MS - 1e6);
    expect(seen).toBeLessThanOrEqual(REMAINING - DEADLINE_MARGIN_MS);
  });
});
