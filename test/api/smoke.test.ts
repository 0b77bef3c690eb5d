import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../client/core';
import { createWalletClient } from '../../client/wallet';
import type { Platform } from '../../local/platform';
import { seedOnFirstStart } from '../../local/seed';
import { ROOT } from '../support/npm-start';
import { startTestPlatform } from '../support/platform';

/**
 * `npm run smoke` (scripts/smoke.ts), the deployed stage's check in docs/deploy.md, run as a CLI
 * against the embedded platform on loopback with `--url`: never against an AWS address.
 */

let platform: Platform;
let dataDir: string;
let apiKey: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-smoke-'));
  apiKey = (await seedOnFirstStart(platform, dataDir)).bootstrap.demo_tenant.api_key;
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Run without blocking this process: the platform it calls is served from here. */
const smoke = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    execFile(process.execPath, ['scripts/run.mjs', 'scripts/smoke.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) =>
      done({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });

describe('npm run smoke', () => {
  it('checks /healthz, mints a user token and moves money with it, and the money is there', async () => {
    const result = await smoke(['--url', platform.urls.public], { SMOKE_API_KEY: apiKey });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(`smoke test passed against ${platform.urls.public}`);
    expect(result.stderr).toContain('ok  GET /healthz');
    expect(result.stderr).toMatch(/ok {2}user token for smoke-/);
    // What it says it did, read back independently.
    const payee = /and (smoke-\S+-payee)/.exec(result.stderr)?.[1];
    expect(payee).toBeDefined();
    const wallet = createWalletClient({ baseUrl: platform.urls.public, credential: apiKey });
    const users = await ok(wallet.GET('/v1/users', { params: { query: { external_id: payee! } } }));
    expect(users.data).toHaveLength(1);
    const balances = await ok(wallet.GET('/v1/users/{userId}/balances', { params: { path: { userId: users.data[0]!.id } } }));
    expect(balances.available).toBe(100);
  });

  it('refuses a live key before sending anything, and says how to call it', async () => {
    const live = await smoke(['--url', platform.urls.public, '--api-key', apiKey.replace('sk_sandbox_', 'sk_live_')]);
    expect(live.status).toBe(2);
    expect(live.stderr).toContain('never a live one');
    expect(live.stderr).not.toContain('GET /healthz');
    const neither = await smoke(['--api-key', apiKey]);
    expect(neither.status).toBe(2);
    expect(neither.stderr).toContain('give --stage <name> or --url <public API URL>');
    expect((await smoke(['--help'])).stdout).toContain('--stage');
  });

  it('fails in one line naming the step when the stage does not answer', async () => {
    // A port nothing listens on: the first step fails, and nothing after it runs.
    const result = await smoke(['--url', 'http://127.0.0.1:9', '--api-key', apiKey]);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(/^error: GET \/healthz: /);
  });
});
