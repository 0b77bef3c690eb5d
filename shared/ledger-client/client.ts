import type { Clock } from '../kernel/clock';
import { AppError } from '../kernel/errors';
import { httpSend, type HttpSend, type OutboundResponse } from '../http/outbound';
import { assertBalanced } from './balance';
import type {
  Account,
  AccountPatch,
  AccountRequest,
  EntryPage,
  EventsQuery,
  FeedPage,
  Ledger,
  LedgerRequest,
  ListQuery,
  Pending,
  PendingRequest,
  PostingRequest,
  Rollup,
  Transaction,
  TransactionPage,
  TransactionsQuery,
} from './contract';
import { METRIC, recordLatency } from '../kernel/metrics';

/**
 * The wallet's way to the ledger: its public HTTP contract with an OIDC client-credentials token,
 * exactly as any other consumer calls it (DESIGN.md "Money moves"). The token is fetched from the
 * issuer's token endpoint and reused until shortly before it expires. Each method takes and answers
 * the types of the ledger's schemas (./contract.ts); answers are typed, not parsed again here.
 */

export interface LedgerClientOptions {
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Requested scope, e.g. `ledger/postings` (Cognito needs one; the dev issuer defaults it). */
  scope?: string;
  clock: Clock;
  /** Default: node:http(s) over keep-alive connections (shared/http/outbound.ts). */
  send?: HttpSend;
  /** Per-request timeout. */
  timeoutMs?: number;
}

/** A refusal the ledger answered with a problem body; `code` is the ledger's catalogue code. */
export class LedgerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`ledger refused: ${code} (${status}) ${detail}`);
    this.name = 'LedgerRefusal';
  }
}

const TOKEN_REFRESH_MARGIN_MS = 60_000;

export class LedgerClient {
  private token: { value: string; expiresAt: number } | undefined;
  private readonly send: HttpSend;

  constructor(private readonly options: LedgerClientOptions) {
    this.send = options.send ?? httpSend;
  }

  createLedger(input: LedgerRequest, idempotencyKey: string): Promise<Ledger> {
    return this.call('POST', '/v1/ledgers', input, idempotencyKey);
  }

  openAccount(ledgerId: string, input: AccountRequest, idempotencyKey: string): Promise<Account> {
    return this.call('POST', `/v1/ledgers/${ledgerId}/accounts`, input, idempotencyKey);
  }

  getAccount(ledgerId: string, accountId: string): Promise<Account> {
    return this.call('GET', `/v1/ledgers/${ledgerId}/accounts/${accountId}`);
  }

  updateAccount(ledgerId: string, accountId: string, patch: AccountPatch): Promise<Account> {
    return this.call('PATCH', `/v1/ledgers/${ledgerId}/accounts/${accountId}`, patch);
  }

  /** Refuses an unbalanced posting before sending it: a PostingInvariantError (./balance.ts), the wallet's bug. */
  async post(ledgerId: string, posting: PostingRequest, idempotencyKey: string): Promise<Transaction> {
    assertBalanced(posting.type, posting.legs);
    return this.call('POST', `/v1/ledgers/${ledgerId}/postings`, posting, idempotencyKey);
  }

  /** Refuses an unbalanced reservation before sending it, as `post` does. */
  async reserve(ledgerId: string, pending: PendingRequest, idempotencyKey: string): Promise<Pending> {
    assertBalanced(pending.type, pending.legs);
    return this.call('POST', `/v1/ledgers/${ledgerId}/pendings`, pending, idempotencyKey);
  }

  voidPending(ledgerId: string, pendingId: string, idempotencyKey: string): Promise<Pending> {
    return this.call('POST', `/v1/ledgers/${ledgerId}/pendings/${pendingId}/void`, undefined, idempotencyKey);
  }

  listEntries(ledgerId: string, accountId: string, query: ListQuery): Promise<EntryPage> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    return this.call('GET', `/v1/ledgers/${ledgerId}/accounts/${accountId}/entries${params.size ? `?${params}` : ''}`);
  }

  getTransaction(ledgerId: string, transactionId: string): Promise<Transaction> {
    return this.call('GET', `/v1/ledgers/${ledgerId}/transactions/${transactionId}`);
  }

  listTransactions(ledgerId: string, query: TransactionsQuery): Promise<TransactionPage> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    return this.call('GET', `/v1/ledgers/${ledgerId}/transactions${params.size ? `?${params}` : ''}`);
  }

  /**
   * The ledger's feed of committed transactions, oldest first after `cursor` (the id of the last
   * event read); the ledger holds back the last seconds (its settle window), so a reader that keeps
   * `next_cursor` misses none. `has_more` false is the end of what is settled now; `next_cursor`
   * stays set there, to poll from later.
   */
  listEvents(ledgerId: string, query: EventsQuery): Promise<FeedPage> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    return this.call('GET', `/v1/ledgers/${ledgerId}/events${params.size ? `?${params}` : ''}`);
  }

  rollup(ledgerId: string): Promise<Rollup> {
    return this.call('GET', `/v1/ledgers/${ledgerId}/rollup`);
  }

  private async call<T>(method: string, path: string, body?: unknown, idempotencyKey?: string, retried = false): Promise<T> {
    const token = await this.accessToken();
    let response: OutboundResponse;
    const started = performance.now();
    try {
      response = await this.send({
        method,
        url: `${this.options.baseUrl}${path}`,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        timeoutMs: this.options.timeoutMs ?? 10_000,
      });
    } catch {
      recordLatency(METRIC.ledgerLatency, started, { Call: callLabel(method, path), Outcome: 'no_answer' });
      throw new AppError('service_unavailable', 'The ledger did not answer; retry with the same Idempotency-Key.');
    }
    recordLatency(METRIC.ledgerLatency, started, { Call: callLabel(method, path), Outcome: `${Math.floor(response.status / 100)}xx` });
    const text = response.text;
    if (response.status === 401 && !retried) {
      // A token revoked or rotated early: fetch a fresh one once.
      this.token = undefined;
      return this.call(method, path, body, idempotencyKey, true);
    }
    if (response.status >= 200 && response.status < 300) return JSON.parse(text) as T;
    let problem: { code?: string; detail?: string } = {};
    try {
      problem = JSON.parse(text) as typeof problem;
    } catch {
      /* not a problem body: a gateway error */
    }
    if (response.status >= 500 || problem.code === undefined) {
      throw new AppError('service_unavailable', 'The ledger is unavailable; retry with the same Idempotency-Key.');
    }
    throw new LedgerRefusal(response.status, problem.code, problem.detail ?? '');
  }

  private async accessToken(): Promise<string> {
    const now = this.options.clock.now().getTime();
    if (this.token && this.token.expiresAt - TOKEN_REFRESH_MARGIN_MS > now) return this.token.value;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.options.scope) form.set('scope', this.options.scope);
    let response: OutboundResponse;
    try {
      response = await this.send({
        method: 'POST',
        url: this.options.tokenUrl,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`).toString('base64')}`,
        },
        body: form.toString(),
        timeoutMs: this.options.timeoutMs ?? 10_000,
      });
    } catch {
      throw new AppError('service_unavailable', 'The token issuer did not answer.');
    }
    if (response.status < 200 || response.status >= 300) throw new AppError('service_unavailable', 'The ledger credentials were refused by the token issuer.');
    let granted: { access_token: string; expires_in: number };
    try {
      granted = JSON.parse(response.text) as typeof granted;
    } catch {
      throw new AppError('service_unavailable', 'The token issuer answered something other than a token.');
    }
    this.token = { value: granted.access_token, expiresAt: now + granted.expires_in * 1000 };
    return granted.access_token;
  }
}

/**
 * A ledger call as a low-cardinality metric dimension: the method and the path's fixed segments,
 * ids left out (`POST postings`, `GET accounts/entries`).
 */
export function callLabel(method: string, path: string): string {
  const segments = path.split('?')[0]!.split('/').filter(Boolean);
  // v1 / ledgers / {ledger} / kind / {id} / action
  const fixed = segments.filter((_, index) => index === 3 || index === 5);
  return `${method} ${fixed.length > 0 ? fixed.join('/') : segments.slice(1, 2).join('/')}`;
}

