import { describe, expect, it } from 'vitest';
import { ApiError, ok, retryAfterMs } from '../../client/core';
import { createWalletClient } from '../../client/wallet';
import { staleClientTypes } from '../../scripts/client-types';

/** The typed client's conventions, against a scripted fetch: no platform needed. */

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

function scripted(answers: Answer[]): { fetch: typeof globalThis.fetch; requests: Request[] } {
  const requests: Request[] = [];
  const fetch = (async (input: Request) => {
    requests.push(input);
    const answer = answers.shift() ?? { status: 500, body: { code: 'internal_error', title: 'Internal error', status: 500, type: 'urn:wallet:problem:internal_error' } };
    const problem = answer.status >= 400;
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': problem ? 'application/problem+json' : 'application/json', ...answer.headers },
    });
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

const problemReply = (status: number, code: string) => ({ type: `urn:wallet:problem:${code}`, title: code, status, code, request_id: 'r-1' });
const transferBody = { from_user_id: '01920000-0000-7000-8000-000000000001', to_user_id: '01920000-0000-7000-8000-000000000002', amount: 100 };
const transfer = { id: 't-1', amount: 100 };

describe('the typed client', () => {
  it('puts a fresh Idempotency-Key on a call that takes one, keeps a given one, and adds none elsewhere', async () => {
    const { fetch, requests } = scripted([{ status: 201, body: transfer }, { status: 201, body: transfer }, { status: 200, body: { data: [], next_cursor: null } }]);
    const wallet = createWalletClient({ baseUrl: 'http://127.0.0.1:1', credential: 'sk_test', fetch });
    await ok(wallet.POST('/v1/transfers', { body: transferBody }));
    await ok(wallet.POST('/v1/transfers', { params: { header: { 'Idempotency-Key': 'mine' } }, body: transferBody }));
    await ok(wallet.GET('/v1/users'));
    expect(requests[0]!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(requests[1]!.headers.get('idempotency-key')).toBe('mine');
    expect(requests[2]!.headers.get('idempotency-key')).toBeNull();
    expect(requests.map((r) => r.headers.get('authorization'))).toEqual(['Bearer sk_test', 'Bearer sk_test', 'Bearer sk_test']);
  });

  it('retries 409 idempotency_in_flight, 429 and 503 with the same key, honouring Retry-After', async () => {
    const { fetch, requests } = scripted([
      { status: 409, body: problemReply(409, 'idempotency_in_flight') },
      { status: 429, body: problemReply(429, 'rate_limited'), headers: { 'retry-after': '0' } },
      { status: 503, body: problemReply(503, 'bulkhead_full'), headers: { 'retry-after': '0' } },
      { status: 201, body: transfer },
    ]);
    const wallet = createWalletClient({ baseUrl: 'http://127.0.0.1:1', fetch, retry: { baseDelayMs: 1 } });
    expect(await ok(wallet.POST('/v1/transfers', { body: transferBody }))).toEqual(transfer);
    expect(requests).toHaveLength(4);
    expect(new Set(requests.map((r) => r.headers.get('idempotency-key'))).size).toBe(1);
  });

  it('throws a problem as ApiError with its code, without retrying a 409 that is not in flight', async () => {
    const { fetch, requests } = scripted([{ status: 409, body: problemReply(409, 'idempotency_key_reused') }]);
    const wallet = createWalletClient({ baseUrl: 'http://127.0.0.1:1', fetch, retry: { baseDelayMs: 1 } });
    const error = await wallet.POST('/v1/transfers', { body: transferBody }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'idempotency_key_reused', requestId: 'r-1' });
    expect(requests).toHaveLength(1);
  });

  it('gives up after maxAttempts and throws the last refusal', async () => {
    const { fetch, requests } = scripted(Array.from({ length: 5 }, () => ({ status: 503, body: problemReply(503, 'service_unavailable'), headers: { 'retry-after': '0' } })));
    const wallet = createWalletClient({ baseUrl: 'http://127.0.0.1:1', fetch, retry: { maxAttempts: 3 } });
    await expect(wallet.GET('/v1/users')).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(requests).toHaveLength(3);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('has generated types that match the committed OpenAPI documents (npm run client:types)', async () => {
    expect(await staleClientTypes()).toEqual([]);
  });
});
