import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffLogin, staffToken, TEST_STAFF_PASSWORD } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';

/**
 * Staff roles with narrower scopes, made the operator's way (`npm run staff -- create ... --role
 * ... --scopes ...` against the running platform, found through DATA_DIR/platform.json), and
 * what they decide: a tenant staff account without clients:manage acts on the clients whose
 * organization it belongs to and on no other, so membership, not the account, decides.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');

let platform: Platform;
let dataDir: string;
const api = apiClient(() => platform.urls.public);
let tenantId: string;
let tenantKey: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-staff-'));
  // What npm start writes once it is up; this test process plays the platform's pid.
  writeFileSync(
    join(dataDir, 'platform.json'),
    JSON.stringify({ pid: process.pid, urls: platform.urls, oidc_issuer: platform.issuer.issuer, dynamodb_endpoint: platform.dynamodbEndpoint, tables: platform.tables }),
  );
  const platformStaff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, platformStaff, 'Roles');
  tenantKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
});

afterAll(async () => {
  await platform?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** `npm run staff -- <args>`, to its end (asynchronously: the table it writes is served from this process). */
async function staffCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  // The platform set WALLET_TABLE in this process; the operator's laptop has none, so the CLI finds the platform by DATA_DIR.
  const { WALLET_TABLE: _table, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/staff.ts', ...args], { cwd: ROOT, env: { ...env, DATA_DIR: dataDir } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { status, stdout, stderr };
}

const create = (email: string, extra: string[]) => staffCli(['create', '--email', email, '--password', TEST_STAFF_PASSWORD, '--tenant', tenantId, ...extra]);

describe('npm run staff -- create --scopes', () => {
  it('gives a tenant staff account only the scopes named, and then membership decides which clients it acts on', async () => {
    const email = `member-${uuidv7()}@example.test`;
    const made = await create(email, ['--role', 'tenant_staff', '--scopes', 'merchants:read,merchants:write,webhooks:read']);
    expect(made.status, made.stderr).toBe(0);
    const account = JSON.parse(made.stdout) as { id: string; role: string; scopes: string[] };
    expect(account).toMatchObject({ role: 'tenant_staff', scopes: ['merchants:read', 'merchants:write', 'webhooks:read'] });

    const [mine, other] = [await clientOf(platform.urls.public, tenantKey), await clientOf(platform.urls.public, tenantKey)];
    expect((await api('POST', `/v1/clients/${mine.id}/members`, { token: tenantKey, body: { staff_id: account.id } })).status).toBe(201);
    const token = await staffLogin(platform, email, TEST_STAFF_PASSWORD);

    const offering = await api('POST', `/v1/clients/${mine.id}/offerings`, { token, body: { title: 'Mine' } });
    expect(offering.status, offering.text).toBe(201);
    expect((await api('GET', `/v1/clients/${mine.id}/offerings/${offering.body.id}`, { token })).status).toBe(200);
    expectProblem(await api('POST', `/v1/clients/${other.id}/offerings`, { token, body: { title: 'Not mine' } }), 'not_client_member');
    expectProblem(await api('GET', `/v1/clients/${other.id}`, { token }), 'not_client_member');
    // Tenant-level administration stays with clients:manage.
    expectProblem(await api('POST', `/v1/clients/${other.id}/approve`, { token }), 'insufficient_scope');
    expectProblem(await api('GET', '/v1/users', { token }), 'insufficient_scope');
  });

  it("keeps the role's default without --scopes (clients:manage: every client), and holds none with --scopes ''", async () => {
    const manager = `manager-${uuidv7()}@example.test`;
    const made = await create(manager, ['--role', 'tenant_staff']);
    expect(made.status, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).scopes).toContain('clients:manage');
    const client = await clientOf(platform.urls.public, tenantKey);
    expect((await api('GET', `/v1/clients/${client.id}`, { token: await staffLogin(platform, manager, TEST_STAFF_PASSWORD) })).status).toBe(200);

    const nobody = await create(`none-${uuidv7()}@example.test`, ['--role', 'tenant_staff', '--scopes', '']);
    expect(nobody.status, nobody.stderr).toBe(0);
    expect(JSON.parse(nobody.stdout).scopes).toEqual([]);
  });

  it('refuses a scope the role cannot hold and a name that is no scope, writing nothing', async () => {
    const platformScope = await create(`p-${uuidv7()}@example.test`, ['--role', 'tenant_staff', '--scopes', 'merchants:read,platform:read']);
    expect(platformScope.status).toBe(1);
    expect(platformScope.stderr).toMatch(/error: scopes: a tenant_staff cannot hold platform:read/);
    const typo = await create(`t-${uuidv7()}@example.test`, ['--role', 'tenant_staff', '--scopes', 'merchant:read']);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/error: --scopes names no such scope: merchant:read/);
    const listed = await staffCli(['list']);
    expect(listed.status, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { email: string }[]).filter((account) => /^[pt]-/.test(account.email))).toEqual([]);
  });
});
