import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostingInvariantError } from '../../shared/ledger-client/balance';
import { LedgerClient, LedgerRefusal } from '../../shared/ledger-client/client';
import type { PostingRequest } from '../../shared/ledger-client/contract';
import { systemClock } from '../../shared/kernel/clock';
import { AppError } from '../../shared/kernel/errors';
import { freePort } from '../../local/ports';

/**
 * The wallet's ledger client over its own HTTP transport (node:http, not fetch), against a ledger
 * and token endpoint on loopback that answer as the test says.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let answer: (request: Seen, res: ServerResponse) => void;
let tokens = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body };
      if (req.url === '/token') {
        tokens += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: `token-${tokens}`, expires_in: 3600, token_type: 'Bearer' }));
        return;
      }
      seen.push(request);
      answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = (overrides: Partial<ConstructorParameters<typeof LedgerClient>[0]> = {}) =>
  new LedgerClient({ baseUrl: base, tokenUrl: `${base}/token`, clientId: 'wallet', clientSecret: 's3cret', clock: systemClock, ...overrides });

const balanced: PostingRequest = {
  type: 'transfer',
  legs: [
    { account_id: '0190f5a0-0000-7000-8000-000000000001', direction: 'debit', amount: 100, commodity: 'USD' },
    { account_id: '0190f5a0-0000-7000-8000-000000000002', direction: 'credit', amount: 100, commodity: 'USD' },
  ],
};

const json = (status: number, body: unknown) => (_: Seen, res: ServerResponse) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('the ledger client', () => {
  it('posts the JSON body with its bearer token and Idempotency-Key, and answers the parsed body', async () => {
    answer = json(201, { id: 'txn-1', legs: [] });
    seen.length = 0;

    const posted = await client().post('ledger-1', { type: 'transfer', legs: [] }, 'key-1');

    expect(posted).toEqual({ id: 'txn-1', legs: [] });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/ledgers/ledger-1/postings', body: '{"type":"transfer","legs":[]}' });
    expect(seen[0]!.headers).toMatchObject({ authorization: expect.stringMatching(/^Bearer token-\d+$/), 'idempotency-key': 'key-1', 'content-type': 'application/json', 'content-length': '29' });
  });

  it('refuses an unbalanced posting or reservation before sending it, and sends a balanced one as it is', async () => {
    answer = json(201, { id: 'txn-2' });
    seen.length = 0;
    const [debit, credit] = balanced.legs!;
    const short = { ...balanced, legs: [debit!, { ...credit!, amount: 99 }] };
    await expect(client().post('ledger-1', short, 'key-6')).rejects.toBeInstanceOf(PostingInvariantError);
    await expect(client().reserve('ledger-1', { ...short, expires_at: '2030-01-01T00:00:00.000Z' }, 'key-7')).rejects.toBeInstanceOf(PostingInvariantError);
    await expect(client().post('ledger-1', { ...balanced, legs: [debit!, { ...credit!, commodity: 'EUR' }] }, 'key-8')).rejects.toBeInstanceOf(PostingInvariantError);
    expect(seen).toHaveLength(0);

    const exchange = { type: 'exchange', legs: [...balanced.legs!, { ...debit!, amount: 7, commodity: 'POINTS' }, { ...credit!, amount: 7, commodity: 'POINTS' }] };
    await client().post('ledger-1', exchange, 'key-9');
    await client().post('ledger-1', { type: 'payment', post_pending_id: '0190f5a0-0000-7000-8000-00000000000a' }, 'key-10');
    expect(seen.map((request) => request.body)).toEqual([JSON.stringify(exchange), '{"type":"payment","post_pending_id":"0190f5a0-0000-7000-8000-00000000000a"}']);
  });

  it('keeps the query of a listing', async () => {
    answer = json(200, { data: [], next_cursor: null });
    seen.length = 0;
    await client().listTransactions('ledger-1', { limit: 5, type: 'transfer' });
    expect(seen[0]!.url).toBe('/v1/ledgers/ledger-1/transactions?limit=5&type=transfer');
  });

  it("throws the ledger's refusal with its code, and 503 for a 5xx or a body that is not a problem", async () => {
    answer = json(422, { code: 'insufficient_funds', detail: 'short' });
    const refusal = await client().post('ledger-1', balanced, 'key-2').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(LedgerRefusal);
    expect(refusal).toMatchObject({ status: 422, code: 'insufficient_funds' });

    answer = (_, res) => res.writeHead(502).end('<html>bad gateway</html>');
    await expect(client().post('ledger-1', balanced, 'key-3')).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('fetches a new token once when the ledger answers 401', async () => {
    let first = true;
    answer = (request, res) => {
      if (first) {
        first = false;
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'unauthenticated' }));
        return;
      }
      json(200, { token: request.headers.authorization })(request, res);
    };
    const before = tokens;
    const answered = await client().getAccount('ledger-1', 'account-1');
    expect(tokens).toBe(before + 2);
    expect(answered).toEqual({ token: `Bearer token-${before + 2}` });
  });

  it('answers 503 when the ledger does not answer within the timeout, or cannot be reached', async () => {
    answer = () => undefined; // never answers: the client's own timeout ends the wait (the test's would fail it)
    const silent = await client({ timeoutMs: 300 }).post('ledger-1', balanced, 'key-4').catch((error: unknown) => error);
    expect(silent).toBeInstanceOf(AppError);
    expect(silent).toMatchObject({ code: 'service_unavailable' });

    const closed = await freePort();
    const unreachable = new LedgerClient({ baseUrl: `http://127.0.0.1:${closed}`, tokenUrl: `${base}/token`, clientId: 'wallet', clientSecret: 's3cret', clock: systemClock });
    await expect(unreachable.post('ledger-1', balanced, 'key-5')).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
