/**
 * The dashboard's one way to the platform: the APIs' own routes, called with the staff session's
 * token. The wallet and auth APIs answer at the public API's address (the page's `wallet-api`
 * meta, across origins: shared/http/cors.ts); the console API is this page's own origin. Every
 * refusal arrives as problem+json and is kept as such, so pages show its `code`.
 */

export type Json = unknown;
export type Row = Record<string, unknown>;

export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

export type ApiName = 'wallet' | 'console';

const walletBase = (): string => (document.querySelector('meta[name="wallet-api"]')?.getAttribute('content') ?? '').replace(/\/+$/, '');
/** The console API's root: the path this page is served under, without /dashboard. */
const consoleBase = (): string => location.pathname.replace(/[/]dashboard[/]*$/, '');

let token: string | null = sessionStorage.getItem('wallet-dashboard-session');
const listeners = new Set<() => void>();

export const session = {
  token: (): string | null => token,
  set(value: string | null): void {
    token = value;
    if (value) sessionStorage.setItem('wallet-dashboard-session', value);
    else sessionStorage.removeItem('wallet-dashboard-session');
    for (const listener of listeners) listener();
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** A fresh Idempotency-Key for an action; a retry of the same click would reuse it. */
export const newKey = (): string => crypto.randomUUID();

export async function request<T = Json>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { api?: ApiName; query?: Record<string, string | undefined>; body?: Json; idempotencyKey?: string; anonymous?: boolean } = {},
): Promise<T> {
  const base = options.api === 'console' ? consoleBase() : walletBase();
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined && value !== '') search.set(name, value);
  const url = `${base}${path}${search.size > 0 ? `?${search}` : ''}`;
  const headers: Record<string, string> = {};
  if (!options.anonymous && token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  } catch (error) {
    throw new Problem(0, 'network_error', `The API at ${base || location.origin} could not be reached (${(error as Error).message}).`);
  }
  const text = await response.text();
  const parsed: unknown = text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
  if (!response.ok) {
    const problem = (parsed ?? {}) as { code?: string; detail?: string; title?: string };
    const refused = new Problem(response.status, problem.code ?? `http_${response.status}`, problem.detail ?? problem.title ?? response.statusText);
    // An expired or revoked session: back to the sign-in form, saying why.
    if (response.status === 401 && !options.anonymous) {
      lastSignOut = refused;
      session.set(null);
    }
    throw refused;
  }
  return parsed as T;
}

/** Why the session ended, shown on the sign-in form. */
export let lastSignOut: Problem | null = null;
export const clearSignOut = (): void => {
  lastSignOut = null;
};

/** The staff session's claims, as the API put them in the token: who is signed in, for the navigation only (the API decides access). */
export interface Claims {
  sub: string;
  role: string;
  tenant_id?: string;
  grant_id?: string;
  scopes: string[];
  exp: number;
}
