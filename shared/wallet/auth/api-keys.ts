import { randomBytes } from 'node:crypto';
import type { TransactItem } from '../../aws/dynamodb';
import { AppError } from '../../kernel/errors';
import { ConditionsFailed, getItem, queryPage, transact, type CreatedRange } from '../../aws/store';
import { auditItem } from '../tenancy/audit';
import type { StoreDeps, WalletDeps } from '../deps';
import { walletKeys } from '../keys';
import type { Principal } from '../../http/principal';
import { TENANT_SCOPES } from './scopes';

import { API_KEY_LIFETIME_DAYS, formatApiKey, hashSecret, processApiKeyCache, toRecord, type ApiKeyCache, type ApiKeyEnv, type ApiKeyRecord, type ApiKeyView } from './api-key-verifier';
import { readClient } from '../catalog/clients';

/** Issuing, listing and revoking tenant API keys (verification: ./api-key-verifier.ts). */

export interface NewApiKey {
  tenantId: string;
  env: ApiKeyEnv;
  name?: string | null;
  scopes: readonly string[];
  clientId?: string | null;
  /** `<kind>:<id>` of whoever issues it. */
  createdBy: string;
}

/**
 * Writes a new key for a tenant and returns it in full, the only time the secret exists outside
 * the caller. No access check: issueApiKey does it and adds its audit record to the same
 * transaction (`withItems`); seeding and tests call this directly.
 * Refuses: tenant_not_found when the tenant does not exist.
 */
export async function createApiKeyRecord(
  deps: StoreDeps,
  input: NewApiKey,
  withItems: (record: ApiKeyRecord) => TransactItem[] = () => [],
): Promise<{ key: string; record: ApiKeyRecord }> {
  const keyId = deps.ids();
  const secret = randomBytes(32).toString('hex');
  const now = deps.clock.now();
  const record: ApiKeyRecord = {
    id: keyId,
    tenant_id: input.tenantId,
    env: input.env,
    name: input.name ?? null,
    scopes: [...new Set(input.scopes)],
    client_id: input.clientId ?? null,
    secret_hash: hashSecret(secret).toString('hex'),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + API_KEY_LIFETIME_DAYS * 86_400_000).toISOString(),
    last_used_at: null,
    revoked_at: null,
    created_by: input.createdBy,
  };
  try {
    await transact(deps, [
      { ConditionCheck: { TableName: deps.table, Key: walletKeys.tenant(input.tenantId), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Put: {
          TableName: deps.table,
          Item: { ...walletKeys.apiKey(keyId), ...walletKeys.apiKeyIndex(input.tenantId, keyId), entity: 'api_key', ...record },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...withItems(record),
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.failures.some((failure) => failure.index === 0)) {
      throw new AppError('tenant_not_found', `No tenant ${input.tenantId}.`);
    }
    throw error;
  }
  return { key: formatApiKey(input.env, keyId, secret), record };
}

export interface ApiKeyIssueRequest {
  tenant_id?: string;
  name?: string;
  env: ApiKeyEnv;
  scopes: readonly string[];
  client_id?: string;
}

export type IssuedApiKey = Omit<ApiKeyView, 'expires_at' | 'last_used_at' | 'revoked_at' | 'created_by'> & { key: string };

/**
 * Issues a key to a tenant, audited. Tenant staff issue keys for their own tenant with scopes they
 * hold themselves; platform staff (platform:manage) name the tenant.
 * Refuses: tenant_not_found (another tenant named, or none exists), client_not_found (client_id is
 * not a client of the tenant), invalid_request (platform staff without tenant_id), insufficient_scope (a scope the staff member lacks, platform staff without
 * platform:manage).
 */
export async function issueApiKey(runtime: WalletDeps, actor: Principal, input: ApiKeyIssueRequest, requestId: string): Promise<IssuedApiKey> {
  const tenantId = tenantFor(actor, input.tenant_id, 'manage');
  const scopes = [...new Set(input.scopes)];
  const foreign = scopes.filter((scope) => !(TENANT_SCOPES as readonly string[]).includes(scope));
  if (foreign.length > 0) {
    throw new AppError('invalid_request', `API keys hold tenant scopes only: ${foreign.join(', ')}.`, { errors: [{ field: 'scopes', message: 'not a tenant scope' }] });
  }
  if (actor.kind !== 'platform_staff') {
    // No one hands out more than they hold.
    const lacking = scopes.filter((scope) => !actor.scopes.has(scope));
    if (lacking.length > 0) throw new AppError('insufficient_scope', `You do not hold: ${lacking.join(', ')}.`);
  }
  // A key bound to a client acts on that client only: it must be a client of this tenant.
  if (input.client_id !== undefined) await readClient(runtime, tenantId, input.client_id);
  const { key, record } = await createApiKeyRecord(
    runtime,
    { tenantId, env: input.env, name: input.name, scopes, clientId: input.client_id ?? null, createdBy: `${actor.kind}:${actor.id}` },
    (created) => [auditItem(runtime, { tenantId, actor, action: 'api_key.create', target: { type: 'api_key', id: created.id }, after: viewOf(created), requestId })],
  );
  return {
    id: record.id,
    key,
    tenant_id: record.tenant_id,
    name: record.name,
    env: record.env,
    scopes: record.scopes,
    client_id: record.client_id,
    created_at: record.created_at,
  };
}

/**
 * A tenant's keys, newest first, without secrets or hashes.
 * Refuses: tenant_not_found, invalid_request (platform staff without tenant_id, a foreign cursor),
 * insufficient_scope.
 */
export async function listApiKeys(
  runtime: WalletDeps,
  actor: Principal,
  query: { tenant_id?: string; cursor?: string; limit: number } & CreatedRange,
): Promise<{ data: ApiKeyView[]; next_cursor: string | null }> {
  const tenantId = tenantFor(actor, query.tenant_id, 'read');
  if (!actor.tenantId) await requireTenant(runtime, tenantId);
  const partition = walletKeys.tenantApiKeys(tenantId);
  const page = await queryPage(runtime, { index: 'gsi1', partition, cursor: query.cursor, created: query, limit: query.limit });
  return { data: page.items.map((item) => viewOf(toRecord(item))), next_cursor: page.next_cursor };
}

/**
 * Revokes a key (idempotent: a revoked key is answered as it is, and audited once). Clears this
 * process's cache entry; other processes keep theirs until it runs out (at most 60 s).
 * Refuses: not_found (unknown key, or another tenant's), insufficient_scope.
 */
export async function revokeApiKey(
  runtime: WalletDeps,
  actor: Principal,
  keyId: string,
  requestId: string,
  cache: ApiKeyCache = processApiKeyCache,
): Promise<ApiKeyView> {
  requireStaffAuthority(actor, 'manage');
  const found = await getItem(runtime, walletKeys.apiKey(keyId));
  const record = found ? toRecord(found) : undefined;
  if (!record || (actor.tenantId !== undefined && record.tenant_id !== actor.tenantId)) throw new AppError('not_found', `No API key ${keyId}.`);
  cache.delete(keyId);
  if (record.revoked_at) return viewOf(record);

  const revokedAt = runtime.clock.now().toISOString();
  const updated: ApiKeyRecord = { ...record, revoked_at: revokedAt };
  try {
    // The revocation and its audit record commit together.
    await transact(runtime, [
      {
        Update: {
          TableName: runtime.table,
          Key: walletKeys.apiKey(keyId),
          UpdateExpression: 'SET revoked_at = :now, revoked_by = :by',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(revoked_at) OR revoked_at = :null)',
          ExpressionAttributeValues: { ':now': revokedAt, ':by': `${actor.kind}:${actor.id}`, ':null': null },
        },
      },
      auditItem(runtime, {
        tenantId: record.tenant_id,
        actor,
        action: 'api_key.revoke',
        target: { type: 'api_key', id: keyId },
        before: viewOf(record),
        after: viewOf(updated),
        requestId,
      }),
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed && error.failures.some((failure) => failure.index === 0))) throw error;
    // A concurrent revocation won: answer what it wrote; its audit record is the one.
    const again = await getItem(runtime, walletKeys.apiKey(keyId));
    return viewOf(toRecord(again!));
  }
  return viewOf(updated);
}

/** Staff authority over keys: tenant staff over their tenant, platform staff with platform scopes. */
function requireStaffAuthority(actor: Principal, need: 'manage' | 'read'): void {
  if (actor.kind === 'platform_staff') {
    const ok = actor.scopes.has('platform:manage') || (need === 'read' && actor.scopes.has('platform:read'));
    if (!ok) throw new AppError('insufficient_scope', `Platform staff need platform:${need} for API keys.`);
    return;
  }
  if (actor.kind !== 'tenant_staff' || !actor.tenantId) throw new AppError('forbidden', 'API keys are managed by tenant or platform staff.');
}

/** The tenant the call acts on: a tenant credential's own (naming another looks missing), or the one platform staff name. */
function tenantFor(actor: Principal, explicit: string | undefined, need: 'manage' | 'read'): string {
  requireStaffAuthority(actor, need);
  if (actor.tenantId) {
    if (explicit && explicit !== actor.tenantId) throw new AppError('tenant_not_found', `No tenant ${explicit}.`);
    return actor.tenantId;
  }
  if (!explicit) throw new AppError('invalid_request', 'tenant_id is required for a platform credential.', { errors: [{ field: 'tenant_id', message: 'required' }] });
  return explicit;
}

async function requireTenant(runtime: WalletDeps, tenantId: string): Promise<void> {
  const found = await getItem(runtime, walletKeys.tenant(tenantId), { consistent: false, projection: 'pk' });
  if (!found) throw new AppError('tenant_not_found', `No tenant ${tenantId}.`);
}

export function viewOf(record: ApiKeyRecord): ApiKeyView {
  const { secret_hash: _hash, ...view } = record;
  return view;
}
