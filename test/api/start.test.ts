import { spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { routes } from '../../shared/routes';
import { contractCheckedFetch, forgetContract, registerContract } from '../support/contract';
import { restartablePort } from '../support/ports';
import { exited, javaProcessesUsing, ROOT, spawnCollecting, untilStarted } from '../support/npm-start';

// `npm start` as a developer runs it: a real process, real ports, a data directory, Ctrl-C.
const dataDir = mkdtempSync(join(tmpdir(), 'wallet-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function npmStart(env: Record<string, string>): { child: ChildProcessWithoutNullStreams; output: () => string } {
  // LOG_LEVEL unset, as in a developer's shell: npm start's own default applies.
  const { LOG_LEVEL: _unset, ...inherited } = process.env;
  // As `npm start` runs it: the bundle scripts/run.mjs compiles once (and again when a source changed).
  return spawnCollecting(process.execPath, ['scripts/run.mjs', 'local/main.ts'], { env: { ...inherited, DATA_DIR: dataDir, OIDC_PORT: '0', ...env } });
}

/** A one-shot command of the repository (a CLI), run to its end. */
function run(args: string[], env: Record<string, string> = {}): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['scripts/run.mjs', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const errorLines = (output: string) => output.split('\n').filter((line) => line.startsWith('error:'));

/**
 * The output less the sandbox's retries that a busy machine causes and the platform answers by
 * design (shared/wallet/sandbox-delivery.ts): a confirmation not answered within its 10 s, or
 * answered 503 (retry), is left for the queue to send again. A refusal of another status, a
 * connection refused ("fetch failed") and every other warning stay in.
 */
function withoutRetriesUnderLoad(output: string): string {
  const retried = (line: string) => {
    if (!line.startsWith('{')) return false;
    let entry: { level?: string; message?: string; error?: string; status?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return false;
    }
    if (entry.level !== 'WARN') return false;
    if (entry.message === 'a sandbox confirmation got no answer; the queue retries it') return /^TimeoutError: /.test(entry.error ?? '');
    return entry.message === 'the wallet refused a sandbox confirmation; the queue retries it' && entry.status === '503';
  };
  return output
    .split('\n')
    .filter((line) => !retried(line))
    .join('\n');
}

describe('npm start', () => {
  // Real processes (the first may compile the bundle) on a machine other suites load: generous ceilings, no timing assertion.
  it('serves both APIs on loopback, and Ctrl-C stops everything including the JVM', { timeout: 240_000 }, async () => {
    const [port, ledgerPort, consolePort] = [await restartablePort(), await restartablePort(), await restartablePort()];
    const { child, output } = npmStart({ PORT: String(port), LEDGER_PORT: String(ledgerPort), CONSOLE_PORT: String(consolePort) });
    // Stopped whatever happens, so a failure here leaves no platform holding the data folder.
    onTestFinished(async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited(child);
    });
    await untilStarted({ child, output });
    // Every answer below is checked against its API's OpenAPI document, as the in-process suites' are.
    const [wallet, ledger, consoleApi] = [`http://127.0.0.1:${port}`, `http://127.0.0.1:${ledgerPort}`, `http://127.0.0.1:${consolePort}`];
    registerContract(wallet, routes, 'public');
    registerContract(ledger, routes, 'ledger');
    registerContract(consoleApi, routes, 'console');
    onTestFinished(() => [wallet, ledger, consoleApi].forEach(forgetContract));
    const fetch = contractCheckedFetch;
    expect((await fetch(`${wallet}/healthz`)).status).toBe(200);
    expect((await fetch(`${ledger}/healthz`)).status).toBe(200);
    expect(output()).toContain(`http://127.0.0.1:${ledgerPort}`);
    expect(javaProcessesUsing(dataDir).length).toBeGreaterThan(0);

    // First start seeds a platform operator and a demo tenant whose key works at once.
    const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    expect(bootstrap).toMatchObject({
      wallet_api: `http://127.0.0.1:${port}`,
      ledger_api: `http://127.0.0.1:${ledgerPort}`,
      platform_staff: { email: expect.any(String), password: expect.any(String) },
      demo_tenant: { id: expect.any(String), name: 'Demo Tenant', currency: 'USD', api_key: expect.stringMatching(/^sk_sandbox_/) },
    });
    const users = await fetch(`http://127.0.0.1:${port}/v1/users`, { headers: { authorization: `Bearer ${bootstrap.demo_tenant.api_key}` } });
    expect(users.status).toBe(200);
    const login = await fetch(`http://127.0.0.1:${port}/v1/auth/staff_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(bootstrap.platform_staff),
    });
    expect(login.status).toBe(201);

    // The demo tenant's partner administrator, seeded beside them, reaches the console API.
    expect(bootstrap.partner_admin).toEqual({ email: expect.any(String), password: expect.any(String) });
    const partnerLogin = await fetch(`http://127.0.0.1:${port}/v1/auth/staff_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(bootstrap.partner_admin),
    });
    expect(partnerLogin.status).toBe(201);
    const { token: partnerToken } = (await partnerLogin.json()) as { token: string };
    const grants = await fetch(`http://127.0.0.1:${consolePort}/v1/support_access_grants`, { headers: { authorization: `Bearer ${partnerToken}` } });
    expect(grants.status).toBe(200);
    expect(await grants.json()).toMatchObject({ data: expect.any(Array) });

    // It reads well: progress while starting, "is up" only after seeding, the docs links, and no
    // request logs, SDK warning or stream error in the terminal.
    const text = output();
    expect(text.indexOf('seeding')).toBeGreaterThan(text.indexOf('starting DynamoDB Local'));
    expect(text.indexOf('is up in')).toBeGreaterThan(text.indexOf('seeding'));
    expect(text).toContain(`http://127.0.0.1:${port}/docs`);
    expect(text).toContain(`http://127.0.0.1:${consolePort}/dashboard`);
    // The dashboard as npm start serves it: the page on the console, its app built at start.
    const dashboard = await fetch(`http://127.0.0.1:${consolePort}/dashboard`);
    expect([dashboard.status, dashboard.headers.get('content-security-policy')]).toEqual([200, expect.stringContaining(`connect-src 'self' http://127.0.0.1:${port}`)]);
    expect((await fetch(`http://127.0.0.1:${consolePort}/dashboard/app.js`)).status).toBe(200);
    expect(text).not.toMatch(/NodeVersionSupportWarning|TrimmedDataAccessException|"message":"request"|failed/);

    // A second start on the same data folder refuses in one line and leaves the first alone.
    const second = run(['local/main.ts'], { PORT: String(await restartablePort()), LEDGER_PORT: String(await restartablePort()), CONSOLE_PORT: String(await restartablePort()), OIDC_PORT: '0' });
    expect(second.status).toBe(1);
    expect(errorLines(second.output)).toEqual([`error: the platform is already running as pid ${child.pid} at http://127.0.0.1:${port} on ${dataDir}; stop it or set DATA_DIR to another folder`]);
    expect(existsSync(join(dataDir, 'platform.json'))).toBe(true);
    const staff = run(['scripts/staff.ts', 'list']);
    expect(staff.status, staff.output).toBe(0);
    expect(staff.output).toContain(bootstrap.platform_staff.email);
    // Nor can the folder be wiped under it.
    const reset = run(['scripts/reset.ts', '--yes']);
    expect(reset.status).toBe(1);
    expect(errorLines(reset.output)).toEqual([expect.stringContaining(`already running as pid ${child.pid}`)]);

    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
    expect(javaProcessesUsing(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, 'platform.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'platform.lock'))).toBe(false);
  });

  // Its ceiling is the sum of its steps' own (two starts of at most 180 s each, a stop that drains
  // for at most 15 s, the confirmations' 180 s), so a slow step fails with its own message.
  it('Ctrl-C with work in flight answers it, exits 0, and the next start finishes what was queued', { timeout: 600_000 }, async () => {
    const ports = () => ({ PORT: String(0), LEDGER_PORT: String(0), CONSOLE_PORT: String(0) });
    const up = async (env: Record<string, string>) => {
      const started = npmStart(env);
      onTestFinished(async () => {
        if (started.child.exitCode === null) started.child.kill('SIGINT');
        await exited(started.child);
      });
      await untilStarted(started);
      const state = JSON.parse(readFileSync(join(dataDir, 'platform.json'), 'utf8')) as { urls: { public: string } };
      return { ...started, wallet: state.urls.public };
    };
    const { api_key: key } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).demo_tenant as { api_key: string };
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const first = await up(ports());
    const user = (await (await fetch(`${first.wallet}/v1/users`, { method: 'POST', headers, body: JSON.stringify({ external_id: `in-flight-${Date.now()}` }) })).json()) as { id: string };

    // Top-ups: each calls the ledger and queues a sandbox confirmation. Ctrl-C once the first is answered.
    let answered!: () => void;
    const firstAnswer = new Promise<void>((r) => (answered = r));
    const topups = Array.from({ length: 30 }, () =>
      fetch(`${first.wallet}/v1/topups`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ user_id: user.id, amount: 100, currency: 'USD', sandbox_outcome: 'succeed' }),
      }).then(
        (response) => (answered(), response.status),
        // Not answered: the error's code (see below).
        (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
      ),
    );
    await firstAnswer;
    first.child.kill('SIGINT');
    const statuses = await Promise.all(topups);
    expect(await exited(first.child)).toBe(0);
    // Answered, or never read: refused at connect once the gateway stopped listening, or reset when
    // the client sent it on a connection the stopping gateway had accepted and never read from (a
    // busy client sends late), as any server's exit resets it. Never read means never done: the
    // balance after the restart is exactly the answered top-ups' (below).
    expect(statuses.filter((status) => status !== 201 && status !== 'ECONNREFUSED' && status !== 'ECONNRESET')).toEqual([]);
    expect(first.output()).toContain('stopped.');
    expect(first.output()).not.toMatch(/ECONNREFUSED|Unhandled|unhandled|error:|failed/);

    // What was accepted is completed after a restart: every confirmation kept in the queue is delivered.
    const accepted = statuses.filter((status) => status === 201).length;
    const second = await up(ports());
    let available = -1;
    for (const deadline = Date.now() + 180_000; Date.now() < deadline && available !== accepted * 100; ) {
      available = ((await (await fetch(`${second.wallet}/v1/users/${user.id}/balances`, { headers })).json()) as { available: number }).available;
      if (available !== accepted * 100) await new Promise((r) => setTimeout(r, 250));
    }
    expect(available).toBe(accepted * 100);
    expect(withoutRetriesUnderLoad(second.output())).not.toMatch(/"level":"WARN"|ECONNREFUSED|failed/);
  });

  it('takes over a lock whose process is gone, refuses a port fetch cannot reach, and names the variable that moves a port', async () => {
    writeFileSync(join(dataDir, 'platform.lock'), JSON.stringify({ pid: 2 ** 22 + 1 }));
    const badPort = run(['local/main.ts'], { PORT: '4190' });
    expect(badPort.status).toBe(1);
    expect(errorLines(badPort.output)).toEqual(['error: Port 4190 is one that fetch and browsers refuse to connect to, so the Wallet and auth APIs (public) cannot be called there; set PORT to another port.']);
    // The stale lock was taken (the error is the port's, not "already running") and given back.
    expect(existsSync(join(dataDir, 'platform.lock'))).toBe(false);
  });

  it('explains its options with --help and wipes a stopped data folder with reset -- --yes', () => {
    const help = run(['local/main.ts', '--help']);
    expect(help.status).toBe(0);
    for (const variable of ['DATA_DIR', 'PORT', 'LEDGER_PORT', 'CONSOLE_PORT', 'OIDC_PORT', 'LOG_LEVEL', 'PUBLIC_THROTTLE', 'CONSOLE_THROTTLE']) expect(help.output).toContain(variable);
    // Every variable the README sets or names that the platform reads (its configuration, local/) is explained.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    // What the platform reads: its configuration's keys, the gateways' port and throttle variables, process.env in local/.
    const config = readFileSync(join(ROOT, 'shared/kernel/config.ts'), 'utf8');
    const gatewaysSource = readFileSync(join(ROOT, 'shared/http/gateways.ts'), 'utf8');
    const local = readdirSync(join(ROOT, 'local')).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(join(ROOT, 'local', f), 'utf8')).join('\n');
    const platformReads = new Set([
      ...[...config.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!),
      ...[...gatewaysSource.matchAll(/local(?:Port|Throttle)Env: '([A-Z0-9_]+)'/g)].map((m) => m[1]!),
      ...[...local.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!),
    ]);
    const mentioned = new Set([...readme.matchAll(/`([A-Z][A-Z0-9_]{2,})`|\b([A-Z][A-Z0-9_]{2,})=/g)].map((m) => (m[1] ?? m[2])!));
    const read = [...mentioned].filter((name) => platformReads.has(name));
    expect(read).toEqual(expect.arrayContaining(['PAYMENT_HOLD_SECONDS', 'ORDER_HOLD_SECONDS', 'PUBLIC_THROTTLE']));
    expect(read.filter((name) => !help.output.includes(name))).toEqual([]);
    const scratch = mkdtempSync(join(tmpdir(), 'wallet-reset-'));
    writeFileSync(join(scratch, 'bootstrap.json'), '{}');
    expect(run(['scripts/reset.ts'], { DATA_DIR: scratch }).status).toBe(2);
    expect(existsSync(scratch)).toBe(true);
    expect(run(['scripts/reset.ts', '--yes'], { DATA_DIR: scratch }).status).toBe(0);
    expect(existsSync(scratch)).toBe(false);
  });

  it('says in one line that a port is taken, and starts nothing', async () => {
    const blocker: Server = createServer();
    const port = await restartablePort();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', () => r()));
    try {
      const { child, output } = npmStart({ PORT: String(port), LEDGER_PORT: String(await restartablePort()), CONSOLE_PORT: String(await restartablePort()) });
      expect(await exited(child)).toBe(1);
      expect(errorLines(output())).toEqual([expect.stringContaining(`Port ${port} is already in use, so the Wallet and auth APIs (public) cannot start there; stop the other process or set PORT to another port.`)]);
      expect(javaProcessesUsing(dataDir)).toEqual([]);
    } finally {
      blocker.close();
    }
  });

  it('says in one line that Java is missing', async () => {
    const { child, output } = npmStart({ PATH: '/nonexistent', PORT: String(await restartablePort()), LEDGER_PORT: String(await restartablePort()), CONSOLE_PORT: String(await restartablePort()) });
    expect(await exited(child)).toBe(1);
    expect(output().split('\n').filter((line) => line.startsWith('error:'))).toEqual([expect.stringContaining('Java 17 or newer is required')]);
  });
});
