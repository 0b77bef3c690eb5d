import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { TENANT_SCOPES } from '../shared/wallet/auth/scopes';
import { systemClock } from '../shared/kernel/clock';
import { uuidv7 } from '../shared/kernel/ids';
import { localDocumentClient } from './dynamodb';
import type { Platform } from './platform';
import { bootstrapFileOf } from './data-dir';

/**
 * First start of the embedded platform: one platform staff account and one demo tenant with a
 * sandbox API key holding every tenant scope, so a new user can call the API with curl at once,
 * and the demo tenant's partner administrator, who reaches the console API. The staff accounts
 * are created as an operator would (straight into the table, as `npm run staff` does); the tenant
 * and the key through the API, as platform staff would. Written to .data/bootstrap.json (0600).
 * A data folder seeded before the partner administrator existed gets one at its next start.
 */

export interface Bootstrap {
  wallet_api: string;
  ledger_api: string;
  console_api: string;
  oidc_issuer: string;
  platform_staff: { email: string; password: string };
  demo_tenant: { id: string; name: string; currency: string; api_key: string };
  /** The demo tenant's partner administrator: signs in at /v1/auth/staff_sessions, calls the console API. */
  partner_admin: { email: string; password: string };
}

export const PLATFORM_STAFF_EMAIL = 'platform@wallet.local';
export const PARTNER_ADMIN_EMAIL = 'partner-admin@wallet.local';

async function createPartnerAdmin(platform: Platform, tenantId: string): Promise<Bootstrap['partner_admin']> {
  const { createStaff } = await import('../shared/wallet/auth/staff');
  const password = randomBytes(18).toString('base64url');
  await createStaff(
    { client: localDocumentClient(platform.dynamodbEndpoint), table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7 },
    { email: PARTNER_ADMIN_EMAIL, password, role: 'partner_admin', tenantId, name: 'Demo tenant partner administrator' },
  );
  return { email: PARTNER_ADMIN_EMAIL, password };
}

export async function seedOnFirstStart(platform: Platform, dataDir: string): Promise<{ bootstrap: Bootstrap; created: boolean }> {
  const file = bootstrapFileOf(dataDir);
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Omit<Bootstrap, 'partner_admin'> & Partial<Pick<Bootstrap, 'partner_admin'>>;
    // Ports may differ from the first start; the credentials do not.
    const partnerAdmin = stored.partner_admin ?? (await createPartnerAdmin(platform, stored.demo_tenant.id));
    const bootstrap: Bootstrap = { ...stored, partner_admin: partnerAdmin, wallet_api: platform.urls.public, ledger_api: platform.urls.ledger, console_api: platform.urls.console, oidc_issuer: platform.issuer.issuer };
    writeFileSync(file, `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });
    return { bootstrap, created: false };
  }

  // Loaded now, after the platform has set the environment these modules read.
  const { createStaff } = await import('../shared/wallet/auth/staff');
  const password = randomBytes(18).toString('base64url');
  await createStaff(
    { client: localDocumentClient(platform.dynamodbEndpoint), table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7 },
    { email: PLATFORM_STAFF_EMAIL, password, role: 'platform', name: 'Platform operator' },
  );

  const api = async <T>(method: string, path: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<T> => {
    const response = await fetch(`${platform.urls.public}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`seeding failed at ${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const session = await api<{ token: string }>('POST', '/v1/auth/staff_sessions', undefined, { email: PLATFORM_STAFF_EMAIL, password });
  const tenant = await api<{ id: string; name: string; currency: string }>('POST', '/v1/tenants', session.token, { name: 'Demo Tenant', currency: 'USD' }, { 'idempotency-key': 'seed-demo-tenant' });
  const key = await api<{ key: string }>('POST', '/v1/api_keys', session.token, { tenant_id: tenant.id, env: 'sandbox', name: 'demo', scopes: [...TENANT_SCOPES] });
  const partnerAdmin = await createPartnerAdmin(platform, tenant.id);

  const bootstrap: Bootstrap = {
    wallet_api: platform.urls.public,
    ledger_api: platform.urls.ledger,
    console_api: platform.urls.console,
    oidc_issuer: platform.issuer.issuer,
    platform_staff: { email: PLATFORM_STAFF_EMAIL, password },
    demo_tenant: { id: tenant.id, name: tenant.name, currency: tenant.currency, api_key: key.key },
    partner_admin: partnerAdmin,
  };
  writeFileSync(file, `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });
  return { bootstrap, created: true };
}
