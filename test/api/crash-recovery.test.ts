import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { routes } from '../../shared/routes';
import { contractCheckedFetch as fetch, forgetContract, registerContract } from '../support/contract';
import { restartablePort } from '../support/ports';
import { javaProcessesUsing, spawnCollecting, untilStarted } from '../support/npm-start';

// `npm start` killed with SIGKILL (no shutdown hook runs, the JVM dies with it) and started again
// on the same data directory: work that was accepted before the kill still finishes.
const dataDir = mkdtempSync(join(tmpdir(), 'wallet-crash-'));
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) killGroup(child);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The whole process group: node and the DynamoDB Local JVM it started, like `kill -9` of a terminal's job. */
function killGroup(child: ChildProcessWithoutNullStreams): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The platform in its own process group (so it can be killed whole), started on the test's data folder. */
async function startKillable(env: Record<string, string>): Promise<ChildProcessWithoutNullStreams> {
  const started = spawnCollecting(process.execPath, ['--import', 'tsx', 'local/main.ts'], { detached: true, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'SILENT', ...env } });
  children.push(started.child);
  await untilStarted(started, 60_000);
  return started.child;
}

describe('a SIGKILL in the middle', () => {
  it('settles every sandbox top-up that was pending at the kill after a restart', async () => {
    const env = {
      // Started twice on the same ports: ones no other test's connections can take in between.
      PORT: String(await restartablePort()),
      LEDGER_PORT: String(await restartablePort()),
      CONSOLE_PORT: String(await restartablePort()),
      OIDC_PORT: String(await restartablePort()),
    };
    const base = `http://127.0.0.1:${env.PORT}`;
    // Every answer is checked against the wallet API's OpenAPI document, as the in-process suites' are.
    registerContract(base, routes, 'public');
    onTestFinished(() => forgetContract(base));
    const first = await startKillable(env);
    const key = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).demo_tenant.api_key as string;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const user = (await (await fetch(`${base}/v1/users`, { method: 'POST', headers, body: JSON.stringify({ external_id: 'crash-victim' }) })).json()) as { id: string };

    // Seven top-ups at once; the sandbox confirms each a second later, so all are pending at the kill.
    const created = await Promise.all(
      Array.from({ length: 7 }, async (_, i) => {
        const response = await fetch(`${base}/v1/topups`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `crash-topup-${i}` },
          body: JSON.stringify({ user_id: user.id, amount: 1000 + i, currency: 'USD', sandbox_outcome: 'succeed' }),
        });
        expect(response.status).toBe(201);
        return (await response.json()) as { id: string; status: string };
      }),
    );
    killGroup(first);
    expect(created.map((topup) => topup.status)).toEqual(Array(7).fill('pending'));
    const deadline = Date.now() + 10_000;
    while (javaProcessesUsing(dataDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    await startKillable(env);
    const settledBy = Date.now() + 120_000;
    let statuses: string[] = [];
    while (Date.now() < settledBy) {
      statuses = await Promise.all(
        created.map(async (topup) => ((await (await fetch(`${base}/v1/topups/${topup.id}`, { headers })).json()) as { status: string }).status),
      );
      if (statuses.every((status) => status === 'succeeded')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(statuses).toEqual(Array(7).fill('succeeded'));
    const balances = await (await fetch(`${base}/v1/users/${user.id}/balances`, { headers })).json();
    expect(JSON.stringify(balances)).toContain(String(7 * 1000 + 21));
    // Two starts of the whole platform and up to two minutes to settle: longer than a unit test.
  }, 300_000);
});
