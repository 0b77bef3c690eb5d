import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { ApiError, ok } from '../client/core';
import { createWalletClient, type WalletPaths } from '../client/wallet';
import { isEventFilter } from '../shared/events/names';
import { PlatformStateError, readLocalCredentials, readPlatformState } from './platform-state';
import { runCli, UsageError } from './cli';

/**
 * `npm run webhooks:listen -- --forward-to http://127.0.0.1:4000/hooks`, like `stripe listen`:
 * listens on a loopback port of its own, registers it as a sandbox webhook endpoint of the demo
 * tenant in the running platform, prints the endpoint's signing secret and each event as it
 * arrives, and forwards every delivery to --forward-to as it came: the same signed bytes and the
 * same headers (X-Wallet-Signature and webhook-signature among them), so the receiver verifies the
 * real signatures with the printed secret, as it is, whichever verifier it uses.
 * The platform's answer is the receiver's (so a failing receiver gets the platform's retries).
 * Ctrl-C deletes the endpoint.
 */

const USAGE = `usage: npm run webhooks:listen -- [--forward-to <loopback url>] [--events <type or family.*,…>]
Registers a sandbox webhook endpoint in the running platform (npm start) for the demo tenant
(WALLET_API_KEY overrides the key), prints its signing secret and every event, and forwards each
delivery with its signature to --forward-to (http://127.0.0.1:… or http://localhost:…).`;

/**
 * Headers of the connection, not of the delivery: everything else (content type, the signature and
 * event id headers, whatever signature scheme the platform adds) is forwarded as it came.
 */
/** What POST /v1/webhook_endpoints takes: its `event_filters` are the known types and families. */
type EndpointCreate = NonNullable<WalletPaths['/v1/webhook_endpoints']['post']['requestBody']>['content']['application/json'];

const NOT_FORWARDED = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);

function loopbackUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to is not a URL: ${value}`);
  }
  // Deliveries carry a tenant's events: they go to this machine only.
  if (url.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    throw new UsageError(`--forward-to must be an http URL on this machine (127.0.0.1, localhost or [::1]): ${value}`);
  }
  return url;
}

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

const time = () => new Date().toISOString().slice(11, 19);

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'forward-to': { type: 'string' }, events: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const forwardTo = values['forward-to'] === undefined ? undefined : loopbackUrl(values['forward-to']);
  const filters = values.events?.split(',').map((filter) => filter.trim()).filter(Boolean);
  const unknownFilters = filters?.filter((filter) => !isEventFilter(filter)) ?? [];
  if (unknownFilters.length > 0) throw new UsageError(`--events: not an event type or family.*: ${unknownFilters.join(', ')}`);

  const state = readPlatformState();
  const wallet = createWalletClient({ baseUrl: state.urls.public, credential: readLocalCredentials().apiKey });

  const server = createServer((request, response) => void receive(request, response));
  async function receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    let type = '?';
    try {
      type = (JSON.parse(body.toString('utf8')) as { type?: string }).type ?? '?';
    } catch {
      // Printed as '?'.
    }
    console.log(`${time()}  --> ${type} [${request.headers['x-wallet-event-id'] ?? 'no event id'}]`);
    if (!forwardTo) {
      response.writeHead(200).end();
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name, value]) => !NOT_FORWARDED.has(name) && typeof value === 'string')) as Record<string, string>;
    try {
      const forwarded = await fetch(forwardTo, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      const text = await forwarded.text();
      console.log(`${time()}  <-- [${forwarded.status}] POST ${forwardTo.href}`);
      response.writeHead(forwarded.status >= 200 && forwarded.status < 300 ? 200 : 502).end(text.slice(0, 1000));
    } catch (error) {
      console.log(`${time()}  <-- [failed] POST ${forwardTo.href}: ${String((error as Error).cause ?? (error as Error).message)}`);
      response.writeHead(502).end();
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;

  const endpoint = await ok(
    wallet.POST('/v1/webhook_endpoints', {
      body: { url: `http://127.0.0.1:${port}/listen`, description: 'npm run webhooks:listen', ...(filters ? { event_filters: filters as EndpointCreate['event_filters'] } : {}) },
    }),
  );
  console.log(`Ready! Your webhook signing secret is ${endpoint.secret} (endpoint ${endpoint.id}, ${filters ? filters.join(', ') : 'every event'})`);
  console.log(forwardTo ? `Forwarding events to ${forwardTo.href}; Ctrl-C stops and deletes the endpoint.` : 'Printing events; Ctrl-C stops and deletes the endpoint.');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await wallet.DELETE('/v1/webhook_endpoints/{endpointId}', { params: { path: { endpointId: endpoint.id } } }).catch(() => undefined);
    server.close();
    server.closeAllConnections();
    console.log(`endpoint ${endpoint.id} deleted.`);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

await runCli(() => main(process.argv.slice(2)), {
  hint: '--help shows the options',
  describe: (error) => {
    const message = error instanceof Error ? error.message : String(error);
    return error instanceof PlatformStateError || error instanceof ApiError ? message : `listen failed: ${message}`;
  },
});
