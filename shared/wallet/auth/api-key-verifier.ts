import { createHash, timingSafeEqual } from 'node:crypto';
import type { DocumentClient } from '../../aws/dynamodb';
import type { Clock } from '../../kernel/clock';
import { ExpiringCache } from '../../kernel/cache';
import { codec, nullable, oneOf, orElse, str, strList } from '../../kernel/codec';
import { getItem } from '../../aws/store';
import { LAST_USED_RESOLUTION_MS } from '../access-records';
import { walletKeys } from '../keys';
import type { Principal } from '../../http/principal';
import { RefusedCredential } from './tokens';

/**
 * Tenant API keys (spec part 5): `sk_{env}_{keyId}_{secret}`, env `live` or `sandbox`, the key id a
 * UUIDv7 written without hyphens (32 hex; every response shows it as the canonical UUID), the
 * secret 32 random bytes in hex. Only sha256(secret) is
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

export const formatApiKey = (env: ApiKeyEnv, keyId: string, secret: string): string => `sk_${env}_${compactKeyId(keyId)}_${secret}`;

/** The key id as the key string carries it: 32 hex digits. */
export const compactKeyId = (keyId: string): string => keyId.replace(/-/g, '').toLowerCase();

/** The key id as every response shows it: a canonical UUID (records from before stored the compact form). */
export function canonicalKeyId(keyId: string): string {
  const hex = compactKeyId(keyId);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The positive verification cache of one process (one per authenticator in tests), by key id in either form. */
export class ApiKeyCache {
  private readonly entries = new ExpiringCache<{ record: ApiKeyRecord; hash: Buffer }>({ ttlMs: API_KEY_CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });

  get(keyId: string, nowMs: number) {
    return this.entries.get(compactKeyId(keyId), nowMs);
  }

  set(record: ApiKeyRecord, hash: Buffer, nowMs: number): void {
    this.entries.set(compactKeyId(record.id), { record, hash }, nowMs);
  }

  delete(keyId: string): void {
    this.entries.delete(compactKeyId(keyId));
  }
}

/** The cache of this process (Lambda container): the authenticator and revocation share it. */
export const processApiKeyCache = new ApiKeyCache();

export interface ApiKeyVerifierOptions {
  client: DocumentClient;
  table: string;
  clock: Clock;
  cache?: ApiKeyCache;
  /**
   * Told that a key was used, at most once per LAST_USED_RESOLUTION_MS per key in this process and
   * only when the record's last_used_at is older than that. The verifier never writes: the caller
   * queues it (../access-records.ts), and the request never waits for its write or fails on it.
   */
  recordUse?(keyId: string, at: string): Promise<void>;
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

  const touch = async (record: ApiKeyRecord, nowMs: number): Promise<void> => {
    const last = Math.max(touchedAtMs.get(record.id) ?? 0, record.last_used_at ? Date.parse(record.last_used_at) : 0);
    if (!options.recordUse || nowMs - last < LAST_USED_RESOLUTION_MS) return;
    touchedAtMs.set(record.id, nowMs);
    if (touchedAtMs.size > CACHE_MAX_ENTRIES) touchedAtMs.delete(touchedAtMs.keys().next().value as string);
    // A hint: a failed hand-over is forgotten (the next use a minute on reports it again).
    await options.recordUse(record.id, new Date(nowMs).toISOString()).catch(() => undefined);
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
      await touch(cached.record, nowMs);
      return cached.record;
    }

    const found = await getItem({ client, table }, walletKeys.apiKey(parsed.keyId), { consistent: false });
    const record = found ? toRecord(found) : undefined;
    const stored = record && /^[0-9a-f]{64}$/.test(record.secret_hash) ? Buffer.from(record.secret_hash, 'hex') : DUMMY_HASH;
    const matches = timingSafeEqual(stored, hash);
    if (!record || !matches) throw new RefusedCredential(record ? 'wrong secret' : 'unknown key id');
    usable(record, parsed.env, nowMs);
    cache.set(record, hash, nowMs);
    await touch(record, nowMs);
    return record;
  };
}

/** The principal of a verified key. */
export const apiKeyPrincipal = (record: ApiKeyRecord): Principal => ({
  kind: 'api_key',
  id: record.id,
  tenantId: record.tenant_id,
  ...(record.client_id ? { clientId: record.client_id } : {}),
  ...(record.env === 'sandbox' ? { sandbox: true } : {}),
  scopes: new Set(record.scopes),
});

/**
 * The APIKEY item's codec. Keys issued before an attribute existed lack it: no `env` is a live key,
 * no scopes none, no secret hash a key no secret matches (the dummy hash is compared instead).
 */
const decodeApiKey = codec<ApiKeyRecord>('api_key', {
  id: str,
  tenant_id: str,
  env: orElse(oneOf('live', 'sandbox'), () => 'live'),
  name: nullable(str),
  scopes: orElse(strList, () => []),
  client_id: nullable(str),
  secret_hash: orElse(str, () => ''),
  created_at: str,
  expires_at: nullable(str),
  last_used_at: nullable(str),
  revoked_at: nullable(str),
  created_by: orElse(str, () => ''),
});

/** An APIKEY item as a record. */
export function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  const record = decodeApiKey(item);
  return { ...record, id: canonicalKeyId(record.id) };
}
