import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/ports';

// `npm start` as a developer runs it: a real process, real ports, a data directory, Ctrl-C.
const ROOT = resolve(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'wallet-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function start(env: Record<string, string>): { child: ChildProcessWithoutNullStreams; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'SILENT', OIDC_PORT: '0', ...env },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((done) => (child.exitCode !== null ? done(child.exitCode) : child.once('exit', (code) => done(code))));

const javaProcessesUsing = (dir: string) =>
  spawnSync('pgrep', ['-f', dir], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);

describe('npm start', () => {
  it('serves both APIs on loopback, and Ctrl-C stops everything including the JVM', async () => {
    const [port, ledgerPort, consolePort] = [await freePort(), await freePort(), await freePort()];
    const { child, output } = start({ PORT: String(port), LEDGER_PORT: String(ledgerPort), CONSOLE_PORT: String(consolePort) });
    const deadline = Date.now() + 60_000;
    while (!output().includes('Try: curl')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`did not start: ${output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ledgerPort}/healthz`)).status).toBe(200);
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

    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
    expect(javaProcessesUsing(dataDir)).toEqual([]);
  });

  it('says in one line that a port is taken, and starts nothing', async () => {
    const blocker: Server = createServer();
    const port = await freePort();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', () => r()));
    try {
      const { child, output } = start({ PORT: String(port), LEDGER_PORT: String(await freePort()), CONSOLE_PORT: String(await freePort()) });
      expect(await exited(child)).toBe(1);
      const errors = output().split('\n').filter((line) => line.startsWith('error:'));
      expect(errors).toEqual([expect.stringContaining(`Port ${port} is already in use`)]);
      expect(javaProcessesUsing(dataDir)).toEqual([]);
    } finally {
      blocker.close();
    }
  });

  it('says in one line that Java is missing', async () => {
    const { child, output } = start({ PATH: '/nonexistent', PORT: String(await freePort()), LEDGER_PORT: String(await freePort()), CONSOLE_PORT: String(await freePort()) });
    expect(await exited(child)).toBe(1);
    expect(output().split('\n').filter((line) => line.startsWith('error:'))).toEqual([expect.stringContaining('Java 17 or newer is required')]);
  });
});
