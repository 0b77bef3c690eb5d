import createClient, { type Client, type Middleware } from 'openapi-fetch';

/**
 * What every typed client of the platform does around openapi-fetch (client/wallet.ts and its
 * siblings): the credential on every call; an Idempotency-Key on every call that takes one, unless
 * the caller gave one, kept across retries so a retry can never move money twice; retries with
 * backoff on 409 `idempotency_in_flight`, 429 and 503, honouring Retry-After; and every failure
 * thrown as an `ApiError` carrying the problem's stable `code`. It imports nothing of the platform:
 * an integrator can copy client/ into their own code.
 */

/** An RFC 7807 problem as the platform answers it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  request_id?: string;
  errors?: { field: string; message: string }[];
  [extension: string]: unknown;
}

/** A refusal of the API: `code` is what to branch on, never `title` or `detail`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly problem: Problem;

  constructor(problem: Problem) {
    const fields = problem.errors?.length ? ` (${problem.errors.map((e) => `${e.field}: ${e.message}`).join('; ')})` : '';
    super(`${problem.status} ${problem.code}: ${problem.detail ?? problem.title}${fields}`);
    this.name = 'ApiError';
    this.status = problem.status;
    this.code = problem.code;
    this.requestId = problem.request_id;
    this.problem = problem;
  }
}

export interface RetryOptions {
  /** Attempts in all, the first included; default 4. */
  maxAttempts?: number;
  /** First backoff when the answer has no Retry-After; doubled each time, with jitter; default 200 ms. */
  baseDelayMs?: number;
  /** No wait is longer than this, whatever Retry-After says; default 30 s. */
  maxDelayMs?: number;
}

export interface ApiClientOptions {
  baseUrl: string;
  /** The bearer credential (API key, user token, staff session, ledger access token), or a function that gets a fresh one. */
  credential?: string | (() => string | Promise<string>);
  retry?: RetryOptions;
  /** Another fetch (tests, instrumentation); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

const RETRYABLE_STATUSES = new Set([409, 429, 503]);

/** Seconds or an HTTP date (RFC 9110 section 10.2.3), as milliseconds from now; undefined if absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Whether an answer is worth the same request again: 429, 503, or a 409 saying the first try is still running. */
async function isRetryable(response: Response): Promise<boolean> {
  if (!RETRYABLE_STATUSES.has(response.status)) return false;
  if (response.status !== 409) return true;
  const problem = (await response.clone().json().catch(() => undefined)) as Partial<Problem> | undefined;
  return problem?.code === 'idempotency_in_flight';
}

/** A fetch that sends the same request again (same headers, same Idempotency-Key) while the answer says to wait. */
function retryingFetch(base: typeof globalThis.fetch, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxAttempts = options.maxAttempts ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 200;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      const response = await base(request.clone());
      if (attempt >= maxAttempts || !(await isRetryable(response))) return response;
      const backoff = baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
      const wait = Math.min(maxDelayMs, retryAfterMs(response.headers.get('retry-after')) ?? backoff);
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
}

/** `METHOD /path/{template}` of the operations that take an Idempotency-Key (from the generated types). */
function idempotencyKeys(operations: readonly string[]): Middleware {
  const takesKey = new Set(operations);
  return {
    onRequest: ({ request, schemaPath }) => {
      if (!takesKey.has(`${request.method} ${schemaPath}`) || request.headers.has('idempotency-key')) return undefined;
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
      return request;
    },
  };
}

function credentials(credential: ApiClientOptions['credential']): Middleware {
  return {
    onRequest: async ({ request }) => {
      if (credential === undefined || request.headers.has('authorization')) return undefined;
      request.headers.set('authorization', `Bearer ${typeof credential === 'function' ? await credential() : credential}`);
      return request;
    },
  };
}

/** Every failure becomes an ApiError: a problem as the platform sent it, anything else as an `unexpected_response`. */
const problems: Middleware = {
  onResponse: async ({ response }) => {
    if (response.ok) return undefined;
    const text = await response.text();
    let problem: Partial<Problem> | undefined;
    try {
      problem = JSON.parse(text) as Partial<Problem>;
    } catch {
      // Not JSON: described below.
    }
    if (problem && typeof problem.code === 'string') throw new ApiError({ ...problem, status: response.status, code: problem.code, type: String(problem.type), title: String(problem.title) });
    throw new ApiError({ type: 'about:blank', title: 'Unexpected response', status: response.status, code: 'unexpected_response', detail: text.slice(0, 200) });
  },
};

/** A typed client of one API: openapi-fetch over `Paths`, with the platform's conventions. */
export function createApiClient<Paths extends object>(options: ApiClientOptions, operations: readonly string[]): Client<Paths> {
  const client = createClient<Paths>({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry) });
  client.use(credentials(options.credential), idempotencyKeys(operations), problems);
  return client;
}

/**
 * The body of a call (every failure throws ApiError, so there is one): `const user = await ok(wallet.POST('/v1/users', …))`.
 */
export async function ok<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined) throw new ApiError({ type: 'about:blank', title: 'No body', status: response.status, code: 'unexpected_response', detail: `${response.status} without a body` });
  return data;
}
