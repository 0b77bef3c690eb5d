import { lookup as dnsLookup } from 'node:dns/promises';
import type http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { bareAddress, classifyAddress, isAllowedAddress, type SandboxTargets } from './addresses';

/**
 * One webhook POST that cannot be pointed inside the platform (SSRF):
 *  1. the host is resolved once (every address, A and AAAA) and every address is checked: one
 *     refused address refuses the attempt, so a name cannot mix a public and a private answer;
 *  2. the connection goes to the checked address: the request's `lookup` is pinned to it, so Node
 *     never resolves the name a second time (DNS rebinding between check and connect is moot),
 *     while Host and TLS SNI stay the hostname, so certificates are verified against the name;
 *  3. redirects are not followed (a 3xx is a failed attempt), no connection is reused
 *     (`agent: false`), and the whole exchange has one deadline.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

export interface WebhookHttp {
  resolve: Resolver;
  /** What sandbox endpoints may reach besides public addresses (never set by the CDK: `none`). */
  sandboxTargets: SandboxTargets;
  timeoutMs: number;
}

export interface PostOutcome {
  ok: boolean;
  responseCode: number | null;
  /** Why the attempt failed without an answer, or null. */
  error: string | null;
  /** The receiver's Retry-After header as sent (seconds or an HTTP date), or null. */
  retryAfter: string | null;
  durationMs: number;
  /** The headers sent (the signed ones, Host, Content-Length, User-Agent): signatures, never a secret. */
  requestHeaders: Record<string, string>;
  /** What the receiver answered besides its status; null when no answer came. */
  response: RecordedResponse | null;
}

/** The part of a receiver's answer an attempt keeps: a bounded set of headers and the body's first bytes. */
export interface RecordedResponse {
  /** Only RECORDED_RESPONSE_HEADERS, each value at most RECORDED_HEADER_CHARS characters. */
  headers: Record<string, string>;
  /** The body's first RECORDED_BODY_BYTES bytes, decoded as UTF-8 (invalid sequences replaced). */
  body: string;
  /** True when the body was longer than what is kept. */
  body_truncated: boolean;
}

/** The receiver's headers an attempt records: what explains an answer, not everything it sent. */
export const RECORDED_RESPONSE_HEADERS = ['content-type', 'content-length', 'content-encoding', 'retry-after', 'location', 'date', 'server', 'x-request-id'] as const;
export const RECORDED_HEADER_CHARS = 256;
/** 2 KiB of the receiver's body: an attempt item stays a few KiB, far inside DynamoDB's 400 KB. */
export const RECORDED_BODY_BYTES = 2_048;

export const WEBHOOK_USER_AGENT = 'wallet-webhooks/1';

export async function postWebhook(
  client: WebhookHttp,
  request: { url: string; body: string; headers: Record<string, string>; livemode: boolean },
): Promise<PostOutcome> {
  const started = performance.now();
  const fail = (error: string): PostOutcome => ({
    ok: false,
    responseCode: null,
    error,
    retryAfter: null,
    durationMs: Math.round(performance.now() - started),
    requestHeaders: request.headers,
    response: null,
  });
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return fail('invalid_url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('invalid_url');
  if (request.livemode && url.protocol !== 'https:') return fail('https_required');
  const target = await checkedTarget(client, url.hostname, { livemode: request.livemode });
  if ('error' in target) return fail(target.error);
  const options = requestOptions(url, target, request.headers, request.body);
  const outcome = await send(url, options, request.body, client.timeoutMs);
  return { ...outcome, durationMs: Math.round(performance.now() - started), requestHeaders: options.headers as Record<string, string> };
}

/**
 * The address to connect to, after checking every address the host has: for a live endpoint,
 * public addresses only, whatever the name and whatever the deployment's setting.
 */
export async function checkedTarget(
  client: Pick<WebhookHttp, 'resolve' | 'sandboxTargets'>,
  hostname: string,
  endpoint: { livemode: boolean },
): Promise<ResolvedAddress | { error: string }> {
  const host = bareAddress(hostname);
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await client.resolve(host);
    } catch (error) {
      return { error: `dns_error: ${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}` };
    }
  }
  if (addresses.length === 0) return { error: 'dns_error: no addresses' };
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (!isAllowedAddress(kind, { livemode: endpoint.livemode, sandboxTargets: client.sandboxTargets })) return { error: `blocked_address: ${address} (${kind})` };
  }
  return addresses[0]!;
}

/** A `lookup` that answers with the checked address only, in both callback shapes Node uses. */
export function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/** The request options: connect to `target`, speak to the URL's host (Host header and SNI). */
export function requestOptions(url: URL, target: ResolvedAddress, headers: Record<string, string>, body: string): https.RequestOptions {
  const hostname = bareAddress(url.hostname);
  const secure = url.protocol === 'https:';
  return {
    protocol: url.protocol,
    hostname,
    port: url.port ? Number(url.port) : secure ? 443 : 80,
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)), 'user-agent': WEBHOOK_USER_AGENT },
    agent: false,
    lookup: pinnedLookup(target),
    // SNI must be a name, never an IP literal; certificate checks use `servername`.
    ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
  };
}

/** The recorded subset of a receiver's headers. */
export function recordedHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of RECORDED_RESPONSE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) kept[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, RECORDED_HEADER_CHARS);
  }
  return kept;
}

type SendOutcome = Omit<PostOutcome, 'durationMs' | 'requestHeaders'>;

function send(url: URL, options: https.RequestOptions, body: string, timeoutMs: number): Promise<SendOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    let responseCode: number | null = null;
    let retryAfter: string | null = null;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    const settle = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
      req.destroy();
    };
    const answered = (code: number) =>
      settle({
        ok: code >= 200 && code < 300,
        responseCode: code,
        error: null,
        retryAfter,
        response: { headers, body: Buffer.concat(chunks).toString('utf8'), body_truncated: truncated },
      });
    // node:http only for a sandbox's http: target; through getBuiltinModule, never an ES import
    // (docs/decisions.md, "node:http and node:util").
    const transport = url.protocol === 'https:' ? https : process.getBuiltinModule('node:http');
    const req = transport.request(options, (res) => {
      responseCode = res.statusCode ?? 0;
      const header = res.headers['retry-after'];
      retryAfter = typeof header === 'string' ? header.slice(0, 100) : null;
      headers = recordedHeaders(res.headers);
      // The body's first 2 KiB are kept; the rest is read and discarded, so the exchange ends.
      res.on('data', (chunk: Buffer) => {
        if (kept >= RECORDED_BODY_BYTES) {
          truncated = true;
          return;
        }
        const room = RECORDED_BODY_BYTES - kept;
        if (chunk.length > room) truncated = true;
        const part = chunk.subarray(0, room);
        chunks.push(part);
        kept += part.length;
      });
      res.on('end', () => answered(responseCode!));
      res.on('error', () => answered(responseCode!));
    });
    const timer = setTimeout(() => {
      if (responseCode !== null) answered(responseCode);
      else settle({ ok: false, responseCode: null, error: 'timeout', retryAfter: null, response: null });
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (responseCode !== null) answered(responseCode);
      else settle({ ok: false, responseCode: null, error: `connection_error: ${error.code ?? error.message}`.slice(0, 200), retryAfter: null, response: null });
    });
    req.end(body);
  });
}
