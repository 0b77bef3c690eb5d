import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from '../../aws/dynamodb';
import type { Clock } from '../../kernel/clock';
import { AppError } from '../../kernel/errors';
import { decodeCursor, encodeCursor } from '../../http/cursor';
import { ConditionsFailed, transact } from '../../aws/store';
import { auditItem } from '../tenancy/audit';
import type { StoreDeps, WalletDeps } from '../deps';
import { walletKeys } from '../keys';
import type { Principal } from '../../http/principal';
import { TENANT_SCOPES } from './scopes';
import { RefusedCredential } from './tokens';

/**
 * Tenant API keys (spec part 5): `sk_{env}_{keyId}_{secret}`, env `live` or `sandbox`, the key id a
 * UUIDv7 without hyphens (32 hex), the secret 32 random bytes in hex. Only sha256(secret) is
 * stored, at APIKEY#<keyId>; the full key is returned once, at issuance.
 *
 * Verification costs one GetItem and one hash comparison whether the key id exists or not, so a
 * guessed secret and a guessed id cannot be told apart by time. Successful verifications are
 * remembered for 60 s per process (spec part 8); revocation clears only the revoking process's
 * entry, so another process may accept a revoked key until its entry runs out.
 */

export type ApiKeyEnv = 'live' | 'sandbox';

export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  env: ApiKeyEnv;
  name: string | null;
  scopes: string[];
  /** The client (merchant) the key acts for, when it is bound to one. */
  client_id: string | null;
  secret_hash: string;
  created_at: string;
  /** Null on records older than expiry (spec part 5). */
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  /** `<principal kind>:<principal id>` of the issuer. */
  created_by: string;
}

/** What listings and revocation return: never the secret, never its hash. */
export type ApiKeyView = Omit<ApiKeyRecord, 'secret_hash'>;

export const API_KEY_LIFETIME_DAYS = 365;
export const API_KEY_CACHE_TTL_MS = 60_000;
/** last_used_at is a hint for people, not an audit trail: one write per key per minute at most. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

const API_KEY_PATTERN = /^sk_(live|sandbox)_([0-9a-f]{32})_([0-9a-f]{64})$/;
/** The hash compared when the key id is unknown, so that path costs what a wrong secret costs. */
const DUMMY_HASH = createHash('sha256').update('no such key').digest();


export const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** The parts of a well-formed key, or undefined. */
export function parseApiKey(credential: string): { env: ApiKeyEnv; keyId: string; secret: string } | undefined {
  const match = API_KEY_PATTERN.exec(credential);
  if (!match) return undefined;
  return { env: match[1] as ApiKeyEnv, keyId: match[2]!, secret: match[3]! };
}

export const formatApiKey = (env: ApiKeyEnv, keyId: string, secret: string): string => `sk_${env}_${keyId}_${secret}`;

/** The positive verification cache of one process (one per authenticator in tests). */
export class ApiKeyCache {
  private readonly entries = new Map<string, { record: ApiKeyRecord; hash: Buffer; untilMs: number }>();

  get(keyId: string, nowMs: number) {
    const entry = this.entries.get(keyId);
    if (entry && entry.untilMs > nowMs) return entry;
    if (entry) this.entries.delete(keyId);
    return undefined;
  }

  set(record: ApiKeyRecord, hash: Buffer, nowMs: number): void {
    this.entries.delete(record.id);
    // Oldest first out: Map iteration follows insertion order.
    if (this.entries.size >= CACHE_MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(record.id, { record, hash, untilMs: nowMs + API_KEY_CACHE_TTL_MS });
  }

  delete(keyId: string): void {
    this.entries.delete(keyId);
  }
}

/** The cache of this process (Lambda container): the authenticator and revocation share it. */
export const processApiKeyCache = new ApiKeyCache();

export interface ApiKeyVerifierOptions {
  client: DynamoDBDocumentClient;
  table: string;
  clock: Clock;
  cache?: ApiKeyCache;
}

/**
 * Verifies an `sk_` credential and returns its record.
 * Refuses: RefusedCredential (unauthenticated) for a malformed key, an unknown id, a wrong secret,
 * an env segment the record does not have, a revoked or an expired key.
 */
export function createApiKeyVerifier(options: ApiKeyVerifierOptions): (credential: string) => Promise<ApiKeyRecord> {
  const { client, table, clock } = options;
  const cache = options.cache ?? processApiKeyCache;
  const touchedAtMs = new Map<string, number>();

  const touch = (record: ApiKeyRecord, nowMs: number) => {
    const last = Math.max(touchedAtMs.get(record.id) ?? 0, record.last_used_at ? Date.parse(record.last_used_at) : 0);
    if (nowMs - last < LAST_USED_RESOLUTION_MS) return;
    touchedAtMs.set(record.id, nowMs);
    if (touchedAtMs.size > CACHE_MAX_ENTRIES) touchedAtMs.delete(touchedAtMs.keys().next().value as string);
    const now = new Date(nowMs).toISOString();
    const threshold = new Date(nowMs - LAST_USED_RESOLUTION_MS).toISOString();
    // Fire and forget: the request never waits for, or fails on, this write. The condition keeps
    // many processes from rewriting it within the same minute.
    void client
      .send(
        new UpdateCommand({
          TableName: table,
          Key: walletKeys.apiKey(record.id),
          UpdateExpression: 'SET last_used_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at = :null OR last_used_at < :threshold)',
          ExpressionAttributeValues: { ':now': now, ':threshold': threshold, ':null': null },
        }),
      )
      .catch(() => undefined);
  };

  /** Checks that hold after the secret matched; these may say why, the caller holds the key. */
  const usable = (record: ApiKeyRecord, env: ApiKeyEnv, nowMs: number): void => {
    if (record.env !== env) throw new RefusedCredential(`env segment ${env} does not match the key's ${record.env}`);
    if (record.revoked_at) throw new RefusedCredential('the API key is revoked', 'The API key has been revoked.');
    if (record.expires_at && Date.parse(record.expires_at) <= nowMs) throw new RefusedCredential('the API key has expired', 'The API key has expired.');
  };

  return async (credential) => {
    const parsed = parseApiKey(credential);
    if (!parsed) throw new RefusedCredential('malformed API key');
    const hash = hashSecret(parsed.secret);
    const nowMs = clock.now().getTime();

    // A hit needs the same secret: a wrong one falls through to the same path as an unknown id.
    const cached = cache.get(parsed.keyId, nowMs);
    if (cached && timingSafeEqual(cached.hash, hash)) {
      usable(cached.record, parsed.env, nowMs);
      touch(cached.record, nowMs);
      return cached.record;
    }

    const found = await client.send(new GetCommand({ TableName: table, Key: walletKeys.apiKey(parsed.keyId) }));
    const record = found.Item ? toRecord(found.Item) : undefined;
    const stored = record && /^[0-9a-f]{64}$/.test(record.secret_hash) ? Buffer.from(record.secret_hash, 'hex') : DUMMY_HASH;
    const matches = timingSafeEqual(stored, hash);
    if (!record || !matches) throw new RefusedCredential(record ? 'wrong secret' : 'unknown key id');
    usable(record, parsed.env, nowMs);
    cache.set(record, hash, nowMs);
    touch(record, nowMs);
    return record;
  };
}

/** The principal of a verified key. */
export const apiKeyPrincipal = (record: ApiKeyRecord): Principal => ({
  kind: 'api_key',
  id: record.id,
  tenantId: record.tenant_id,
  ...(record.client_id ? { clientId: record.client_id } : {}),
  scopes: new Set(record.scopes),
});

// ---------------------------------------------------------------------------------------------
// Issue, list, revoke

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
  const keyId = deps.ids().replace(/-/g, '');
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
 * Refuses: tenant_not_found (another tenant named, or none exists), invalid_request (platform staff
 * without tenant_id), insufficient_scope (a scope the staff member lacks, platform staff without
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
  query: { tenant_id?: string; cursor?: string; limit: number },
): Promise<{ data: ApiKeyView[]; next_cursor: string | null }> {
  const tenantId = tenantFor(actor, query.tenant_id, 'read');
  if (!actor.tenantId) await requireTenant(runtime, tenantId);
  const partition = walletKeys.tenantApiKeys(tenantId);
  let startKey: Record<string, unknown> | undefined;
  if (query.cursor) {
    startKey = decodeCursor(query.cursor, 'invalid_request', ['pk', 'sk', 'gsi1pk', 'gsi1sk']);
    if (startKey.gsi1pk !== partition) throw new AppError('invalid_request', 'cursor is not a cursor this listing returned.');
  }
  const result = await runtime.client.send(
    new QueryCommand({
      TableName: runtime.table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': partition },
      ScanIndexForward: false,
      Limit: query.limit,
      ExclusiveStartKey: startKey,
    }),
  );
  const data = (result.Items ?? []).map((item) => viewOf(toRecord(item)));
  const last = result.LastEvaluatedKey;
  return { data, next_cursor: last ? encodeCursor(last) : null };
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
  const found = await runtime.client.send(new GetCommand({ TableName: runtime.table, Key: walletKeys.apiKey(keyId), ConsistentRead: true }));
  const record = found.Item ? toRecord(found.Item) : undefined;
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
    const again = await runtime.client.send(new GetCommand({ TableName: runtime.table, Key: walletKeys.apiKey(keyId), ConsistentRead: true }));
    return viewOf(toRecord(again.Item!));
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
  const found = await runtime.client.send(new GetCommand({ TableName: runtime.table, Key: walletKeys.tenant(tenantId), ProjectionExpression: 'pk' }));
  if (!found.Item) throw new AppError('tenant_not_found', `No tenant ${tenantId}.`);
}

function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  const text = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : null);
  return {
    id: String(item.id),
    tenant_id: String(item.tenant_id),
    env: item.env === 'sandbox' ? 'sandbox' : 'live',
    name: text('name'),
    scopes: Array.isArray(item.scopes) ? (item.scopes as unknown[]).map(String) : [],
    client_id: text('client_id'),
    secret_hash: String(item.secret_hash ?? ''),
    created_at: String(item.created_at),
    expires_at: text('expires_at'),
    last_used_at: text('last_used_at'),
    revoked_at: text('revoked_at'),
    created_by: String(item.created_by ?? ''),
  };
}

export function viewOf(record: ApiKeyRecord): ApiKeyView {
  const { secret_hash: _hash, ...view } = record;
  return view;
}
