import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddress, sandboxTargetsOf, type AddressKind, type SandboxTargets } from '../../shared/wallet/webhooks/addresses';
import { checkedTarget, pinnedLookup, postWebhook, requestOptions, type ResolvedAddress, type Resolver } from '../../shared/wallet/webhooks/http';
import { checkEndpointUrl } from '../../shared/wallet/webhooks/urls';

/**
 * SSRF defences of webhook delivery, without DNS: a fake resolver stands in for it, and a real
 * HTTP server on 127.0.0.1 shows where connections actually go.
 */

let server: Server;
let port: number;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    req.resume();
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` });
      res.end();
      return;
    }
    res.writeHead(204);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A resolver answering from a table, counting its calls. */
function fakeResolver(answers: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

describe('address classification', () => {
  const cases: [string, AddressKind][] = [
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'private'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'ipv4_mapped'],
    ['::ffff:8.8.8.8', 'ipv4_mapped'],
    ['::ffff:7f00:1', 'ipv4_mapped'],
    ['::127.0.0.1', 'reserved'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['2001::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['not-an-ip', 'invalid'],
  ];
  it.each(cases)('classifies %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('lets the setting open loopback, or loopback and private networks, to sandbox endpoints only, never link-local or mapped addresses', () => {
    const sandbox = (kind: AddressKind, sandboxTargets: SandboxTargets) => isAllowedAddress(kind, { livemode: false, sandboxTargets });
    expect(['loopback', 'private'].map((k) => sandbox(k as AddressKind, 'none'))).toEqual([false, false]);
    expect(['loopback', 'private'].map((k) => sandbox(k as AddressKind, 'loopback'))).toEqual([true, false]);
    expect(['loopback', 'private'].map((k) => sandbox(k as AddressKind, 'private'))).toEqual([true, true]);
    for (const kind of ['link_local', 'cgnat', 'multicast', 'unspecified', 'reserved', 'ipv4_mapped', 'invalid'] as AddressKind[]) {
      expect(sandbox(kind, 'private'), kind).toBe(false);
    }
  });

  it('lets a live endpoint reach public addresses only, whatever the setting', () => {
    for (const kind of ['loopback', 'private', 'link_local'] as AddressKind[]) {
      expect(isAllowedAddress(kind, { livemode: true, sandboxTargets: 'private' }), kind).toBe(false);
    }
    expect(isAllowedAddress('public', { livemode: true, sandboxTargets: 'none' })).toBe(true);
  });

  it('reads WEBHOOK_ALLOW_PRIVATE_TARGETS as none, loopback, or loopback and private networks', () => {
    expect([sandboxTargetsOf('false'), sandboxTargetsOf('loopback'), sandboxTargetsOf('true')]).toEqual(['none', 'loopback', 'private']);
  });
});

describe('endpoint URLs at creation', () => {
  it.each([
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/hook',
    'https://[fd00::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://0x7f.0.0.1/hook',
    'https://2130706433/hook',
    'https://100.64.0.1/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
    'https://LOCALHOST./hook',
    'https://api.localhost../hook',
  ])('refuses %s for a live endpoint', (url) => {
    expect(checkEndpointUrl(url, { livemode: true }).ok).toBe(false);
  });

  it('refuses http, credentials, fragments and other schemes for a live endpoint', () => {
    for (const url of ['http://hooks.example.com/', 'https://user:pw@hooks.example.com/', 'https://hooks.example.com/#x', 'ftp://hooks.example.com/', 'not a url']) {
      expect(checkEndpointUrl(url, { livemode: true }).ok, url).toBe(false);
    }
  });

  it('accepts an https name for a live endpoint (its addresses are checked at every delivery)', () => {
    expect(checkEndpointUrl('https://hooks.example.com:8443/wallet?x=1', { livemode: true })).toMatchObject({ ok: true });
  });

  it('refuses, even for a sandbox endpoint, a literal no setting could ever deliver to', () => {
    for (const url of ['http://169.254.169.254/latest', 'http://100.64.0.1/', 'http://224.0.0.1/', 'http://[fe80::1]/']) {
      expect(checkEndpointUrl(url, { livemode: false }).ok, url).toBe(false);
    }
    expect(checkEndpointUrl('http://10.0.0.7:8080/hook', { livemode: false }).ok).toBe(true);
  });

  it('accepts http and loopback for a sandbox endpoint; delivery still refuses it unless private targets are allowed', async () => {
    expect(checkEndpointUrl('http://127.0.0.1:3000/hook', { livemode: false }).ok).toBe(true);
    const outcome = await postWebhook(
      { resolve: fakeResolver({}), sandboxTargets: 'none', timeoutMs: 1_000 },
      { url: `http://127.0.0.1:${port}/hook`, body: '{}', headers: {}, livemode: false },
    );
    expect(outcome).toMatchObject({ ok: false, responseCode: null, error: 'blocked_address: 127.0.0.1 (loopback)' });
  });
});

describe('the address check at delivery', () => {
  const strict = (answers: Record<string, string[]>) => ({ resolve: fakeResolver(answers), sandboxTargets: 'none' as const });
  const sandbox = { livemode: false };
  const live = { livemode: true };

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['::1', 'loopback'],
    ['fd00::1', 'private'],
  ])('refuses a name resolving to %s', async (address, kind) => {
    expect(await checkedTarget(strict({ 'hooks.example': [address] }), 'hooks.example', sandbox)).toEqual({ error: `blocked_address: ${address} (${kind})` });
  });

  it('refuses a name when any one of its addresses is refused', async () => {
    const target = await checkedTarget(strict({ 'mixed.example': ['93.184.216.34', '10.0.0.1'] }), 'mixed.example', sandbox);
    expect(target).toEqual({ error: 'blocked_address: 10.0.0.1 (private)' });
  });

  it('refuses IP literals without resolving', async () => {
    const client = strict({});
    expect(await checkedTarget(client, '[::1]', sandbox)).toEqual({ error: 'blocked_address: ::1 (loopback)' });
    expect(await checkedTarget(client, '169.254.169.254', sandbox)).toEqual({ error: 'blocked_address: 169.254.169.254 (link_local)' });
    expect(client.resolve.calls).toEqual([]);
  });

  it('keeps the metadata address refused even where private targets are allowed', async () => {
    const client = { resolve: fakeResolver({ 'metadata.example': ['169.254.169.254'] }), sandboxTargets: 'private' as const };
    expect(await checkedTarget(client, 'metadata.example', sandbox)).toEqual({ error: 'blocked_address: 169.254.169.254 (link_local)' });
  });

  it('never lets a live endpoint reach loopback or a private network, by a name or a literal, whatever the setting', async () => {
    const open = { resolve: fakeResolver({ 'intranet.example': ['10.1.2.3'], 'hosts-file.example': ['127.0.0.1'], 'localhost.': ['127.0.0.1'] }), sandboxTargets: 'private' as const };
    expect(await checkedTarget(open, 'hosts-file.example', live)).toEqual({ error: 'blocked_address: 127.0.0.1 (loopback)' });
    expect(await checkedTarget(open, 'intranet.example', live)).toEqual({ error: 'blocked_address: 10.1.2.3 (private)' });
    expect(await checkedTarget(open, 'localhost.', live)).toEqual({ error: 'blocked_address: 127.0.0.1 (loopback)' });
    expect(await checkedTarget(open, '[::1]', live)).toEqual({ error: 'blocked_address: ::1 (loopback)' });
    // The same names are reachable for a sandbox endpoint where the setting opens them.
    expect(await checkedTarget(open, 'hosts-file.example', sandbox)).toEqual({ address: '127.0.0.1', family: 4 });
  });

  it('lets the embedded default (loopback) reach loopback but not a private network, refused before any connection', async () => {
    const loopbackOnly = { resolve: fakeResolver({ 'intranet.example': ['192.168.1.10'] }), sandboxTargets: 'loopback' as const };
    expect(await checkedTarget(loopbackOnly, 'intranet.example', sandbox)).toEqual({ error: 'blocked_address: 192.168.1.10 (private)' });
    expect(await checkedTarget(loopbackOnly, '10.0.0.7', sandbox)).toEqual({ error: 'blocked_address: 10.0.0.7 (private)' });
    expect(await checkedTarget(loopbackOnly, '127.0.0.1', sandbox)).toEqual({ address: '127.0.0.1', family: 4 });
  });

  it('answers an unresolvable name with a dns error', async () => {
    expect(await checkedTarget(strict({}), 'nowhere.example', sandbox)).toEqual({ error: 'dns_error: ENOTFOUND' });
  });

  it('picks a checked public address', async () => {
    expect(await checkedTarget(strict({ 'ok.example': ['93.184.216.34', '2606:4700:4700::1111'] }), 'ok.example', sandbox)).toEqual({ address: '93.184.216.34', family: 4 });
  });
});

describe('connecting to the checked address', () => {
  it('resolves once and connects to the checked address, speaking to the hostname (DNS rebinding has no second answer to use)', async () => {
    // A rebinding resolver: the first answer passes the check, any later one would point elsewhere.
    let answers = 0;
    const calls: string[] = [];
    const rebinding: Resolver = async (hostname) => {
      calls.push(hostname);
      answers += 1;
      return [{ address: answers === 1 ? '127.0.0.1' : '169.254.169.254', family: 4 }];
    };
    const before = seen.length;
    const outcome = await postWebhook(
      { resolve: rebinding, sandboxTargets: 'loopback', timeoutMs: 2_000 },
      { url: `http://rebind.test:${port}/pinned?x=1`, body: '{"a":1}', headers: { 'content-type': 'application/json' }, livemode: false },
    );
    expect(outcome).toMatchObject({ ok: true, responseCode: 204, error: null });
    expect(calls).toEqual(['rebind.test']);
    const request = seen[before]!;
    expect(request.url).toBe('/pinned?x=1');
    // The name, not the address: virtual hosts and TLS certificates see what the tenant registered.
    expect(request.headers.host).toBe(`rebind.test:${port}`);
    expect(request.headers['content-length']).toBe('7');
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const before = seen.length;
    const outcome = await postWebhook(
      { resolve: fakeResolver({}), sandboxTargets: 'loopback', timeoutMs: 2_000 },
      { url: `http://127.0.0.1:${port}/redirect`, body: '{}', headers: {}, livemode: false },
    );
    expect(outcome).toMatchObject({ ok: false, responseCode: 302, error: null });
    expect(seen.slice(before).map((r) => r.url)).toEqual(['/redirect']);
  });

  it('refuses http for a live endpoint at delivery too', async () => {
    const outcome = await postWebhook(
      { resolve: fakeResolver({}), sandboxTargets: 'loopback', timeoutMs: 1_000 },
      { url: `http://127.0.0.1:${port}/x`, body: '{}', headers: {}, livemode: true },
    );
    expect(outcome).toMatchObject({ ok: false, error: 'https_required' });
  });

  it('reports a refused connection as a connection error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcome = await postWebhook(
      { resolve: fakeResolver({}), sandboxTargets: 'loopback', timeoutMs: 1_000 },
      { url: `http://127.0.0.1:${closedPort}/`, body: '{}', headers: {}, livemode: false },
    );
    expect(outcome).toMatchObject({ ok: false, responseCode: null, error: 'connection_error: ECONNREFUSED' });
  });

  it('pins https requests to the checked address with SNI and Host set to the name', () => {
    const options = requestOptions(new URL('https://hooks.example.com/in?a=b'), { address: '93.184.216.34', family: 4 }, { 'x-test': '1' }, 'body');
    expect(options).toMatchObject({ hostname: 'hooks.example.com', servername: 'hooks.example.com', port: 443, path: '/in?a=b', method: 'POST', agent: false });
    expect(options.headers).toMatchObject({ host: 'hooks.example.com', 'content-length': '4', 'x-test': '1' });
    const literal = requestOptions(new URL('https://93.184.216.34/'), { address: '93.184.216.34', family: 4 }, {}, '');
    expect(literal.servername).toBeUndefined();
  });

  it('answers both shapes of lookup with the checked address only', async () => {
    const lookup = pinnedLookup({ address: '93.184.216.34', family: 4 });
    const single = await new Promise((resolve) => lookup('evil.example', {}, (_error, address, family) => resolve([address, family])));
    expect(single).toEqual(['93.184.216.34', 4]);
    const all = await new Promise((resolve) => lookup('evil.example', { all: true }, (_error, addresses) => resolve(addresses)));
    expect(all).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });
});
