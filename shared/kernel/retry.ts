import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * THE retry policy: the one module that loops on failure. It decides what is tried again (the
 * failures below that wrote nothing or whose outcome is unknown but safe to send again, and the
 * caller's own "another writer won" answers), how often (a policy's attempts), with what backoff
 * (full jitter) and until when: never past the deadline of the invocation serving the request
 * (the Lambda's remaining time less a margin, carried here from the entry points by
 * `withInvocationDeadline`), so a throttled table answers 503 while the client can still retry,
 * not a Lambda timeout.
 *
 * Layers do not multiply: DynamoDB requests are retried here only (the SDK client sends each
 * request once: shared/aws/clients.ts), so one write is sent at most `POLICIES.dynamodb.attempts`
 * times. A loop that re-reads and decides again (`POLICIES.contended`) sends a different write
 * each time; the deadline bounds it with everything it calls.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** The backoff's ceiling before an attempt n is `min(capMs, baseMs * 2^n)`; the wait is uniform below it. */
  readonly baseMs: number;
  readonly capMs: number;
  /**
   * The base after a failure that says the service is overloaded or unreachable (throttled, no
   * answer): backing off from 10 ms there adds load where it hurts (the SDK's standard strategy
   * starts at 100 ms for the same reason).
   */
  readonly overloadedBaseMs?: number;
}

export const POLICIES = {
  /**
   * One DynamoDB request: throttled (the request, or an item of a transaction or batch), without
   * an answer (timeout, dropped connection, 5xx), refused because another transaction holds an
   * item, or answered with keys or items unprocessed.
   */
  dynamodb: { attempts: 10, baseMs: 10, capMs: 1_000, overloadedBaseMs: 100 },
  /**
   * A read-decide-write run again because another writer committed between the read and the
   * write (a version condition failed). The ceiling grows to a second: fifty writers on one item
   * need their tries spread that wide.
   */
  contended: { attempts: 30, baseMs: 5, capMs: 1_000 },
} as const satisfies Record<string, RetryPolicy>;

/**
 * Attempts per request of the SDK clients we never loop over (SQS, EventBridge, KMS, Secrets
 * Manager): their retries are the SDK's standard ones, and only theirs.
 */
export const SDK_ATTEMPTS = 3;

/**
 * How many times its configured timeout a function gets on the embedded platform
 * (`EMBEDDED_TIMEOUT_SCALE`, default 1, never set on AWS): the test suite stretches it, since
 * several platforms share a busy 2-core machine there and a test's outcome must not depend on the
 * machine's speed; the deadline itself is tested with injected clocks (test/unit/retry.test.ts).
 * The SDK clients' per-attempt timeouts scale with it (shared/aws/clients.ts).
 */
export function embeddedTimeoutScale(): number {
  const scale = Number(process.env.EMBEDDED_TIMEOUT_SCALE ?? 1);
  return Number.isFinite(scale) && scale > 0 ? scale : 1;
}

/** Kept back from the invocation's remaining time: to answer the 503, log it and flush metrics. */
export const DEADLINE_MARGIN_MS = 1_000;

/** The clock and sleep of the retries (tests inject both, and the randomness of the jitter). */
export interface RetryTiming {
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds on the deadline's clock (default: `performance.now()`, monotonic). */
  now?: () => number;
  random?: () => number;
}

const monotonicNow = () => performance.now();
const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): concurrent retries spread out instead of colliding again. */
export const backoffMs = (policy: RetryPolicy, attempt: number, random: () => number = Math.random, overloaded = false): number =>
  random() * Math.min(policy.capMs, (overloaded ? (policy.overloadedBaseMs ?? policy.baseMs) : policy.baseMs) * 2 ** attempt);

const deadlines = new AsyncLocalStorage<number>();

/** The deadline (on the `performance.now()` clock) of the invocation this code runs for; undefined outside one. */
export const currentDeadline = (): number | undefined => deadlines.getStore();

/** Runs `run` with `deadlineAt` as its deadline (an earlier one already in force stays). */
export function withDeadline<T>(deadlineAt: number | undefined, run: () => T): T {
  const outer = currentDeadline();
  const deadline = earliest(outer, deadlineAt);
  return deadline === undefined || deadline === outer ? run() : deadlines.run(deadline, run);
}

/** The deadline of a Lambda invocation: its remaining time less the margin. */
export function invocationDeadline(context: { getRemainingTimeInMillis?: () => number } | undefined, now: () => number = monotonicNow): number | undefined {
  const remaining = context?.getRemainingTimeInMillis?.();
  return remaining === undefined || !Number.isFinite(remaining) ? undefined : now() + remaining - DEADLINE_MARGIN_MS;
}

/** Runs an entry point's work under its invocation's deadline (the HTTP handler factory and every worker do). */
export const withInvocationDeadline = <T>(context: { getRemainingTimeInMillis?: () => number } | undefined, run: () => T): T => withDeadline(invocationDeadline(context), run);

const earliest = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

export interface RetryOptions {
  /** Whether this failure is worth another attempt (`transientAwsFailure` for the AWS ones). */
  retryable: (error: unknown) => boolean;
  /** Whether the failure says the service is overloaded (the policy's `overloadedBaseMs` applies). */
  overloaded?: (error: unknown) => boolean;
  /** The error to throw when attempts or time run out (a retryable problem: 503 `service_unavailable`). */
  exhausted: (error: unknown) => Error;
  /** An earlier deadline than the invocation's, on the same clock (a commit that must land within a bound or not at all). */
  deadlineAt?: number;
  timing?: RetryTiming;
}

/**
 * `attempt(n)` until it succeeds, fails with something not retryable (thrown as it came), or the
 * policy's attempts are spent or the next one would start past the deadline (`exhausted`). No
 * backoff is slept past the deadline.
 */
export async function retrying<T>(policy: RetryPolicy, attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const now = options.timing?.now ?? monotonicNow;
  const sleep = options.timing?.sleep ?? timerSleep;
  const deadline = earliest(currentDeadline(), options.deadlineAt);
  for (let n = 1; ; n += 1) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!options.retryable(error)) throw error;
      const delay = backoffMs(policy, n, options.timing?.random, options.overloaded?.(error) ?? false);
      if (n >= policy.attempts || (deadline !== undefined && now() + delay >= deadline)) throw options.exhausted(error);
      await sleep(delay);
    }
  }
}

/**
 * What an AWS SDK failure is, for retrying: `throttled` (the request, or an item of it, over its
 * rate), `lost` (no answer: a timeout, a dropped connection, a 5xx; the outcome is unknown, and
 * DynamoDB transactions are sent again under the same ClientRequestToken), `conflict` (another
 * transaction holds an item; nothing was written). Undefined: an answer, not retried. Judged by
 * the exception's name, code and status, so the kernel needs no SDK.
 */
export function transientAwsFailure(error: unknown): 'throttled' | 'lost' | 'conflict' | undefined {
  const failure = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; CancellationReasons?: { Code?: string }[] } | undefined;
  const name = failure?.name ?? '';
  if (THROTTLED.has(name)) return 'throttled';
  if (name === 'TransactionConflictException') return 'conflict';
  if (name === 'TransactionCanceledException') {
    // Cancelled as a whole for a conflict or an item's throttling (a failed condition is an answer the store decodes first).
    const codes = (failure?.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
    if (codes.some((code) => code === 'ConditionalCheckFailed')) return undefined;
    if (codes.some((code) => code === 'TransactionConflict')) return 'conflict';
    return codes.some((code) => CANCELLED_THROTTLED.has(code)) ? 'throttled' : undefined;
  }
  if (LOST_NAMES.has(name) || LOST_CODES.has(failure?.code ?? '') || (failure?.$metadata?.httpStatusCode ?? 0) >= 500) return 'lost';
  return undefined;
}

/**
 * Throttling as DynamoDB (and the SDK's other services) name it. `TransactionInProgressException`:
 * the same ClientRequestToken's transaction still running, so it is sent again later, under the same token.
 */
const THROTTLED = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'TransactionInProgressException', 'Throttling', 'TooManyRequestsException']);
const CANCELLED_THROTTLED = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);
const LOST_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'NetworkingError', 'InternalServerError', 'ServiceUnavailable']);
const LOST_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
