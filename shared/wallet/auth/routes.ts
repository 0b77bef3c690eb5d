import * as z from '../../kernel/zod';
import { defineRoute, type Access, idempotencyOptional } from '../../http/route';
import { cursor, page, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';
import { ALL_SCOPES, TENANT_SCOPES } from './scopes';

/**
 * The auth API (spec part 1): user tokens, staff login, tenant API keys and the JWKS every
 * verifier reads. Served on the public gateway next to the wallet API.
 */

const common = { api: 'auth', tags: ['auth'] } as const;
const keyManagers: Access = { principals: ['tenant_staff', 'platform_staff'], scopes: [] };

const tenantScope = z.enum(TENANT_SCOPES);

export const userTokenCreate = z.strictObject({
  user_external_id: z.string().check(z.minLength(1), z.maxLength(255)),
  // Any name: one the key does not hold, an unknown one included, is scope_exceeds_key (spec part 5).
  scopes: z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.minLength(1), z.maxLength(ALL_SCOPES.length)),
  ttl_seconds: z._default(z.int().check(z.minimum(60), z.maximum(3600)), 900),
});

export const userToken = z.object({
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_at: timestamp,
  user_id: uuid,
  scopes: z.array(z.string()),
});

export const staffSessionCreate = z.strictObject({
  email: z.string().check(z.minLength(1), z.maxLength(320)),
  password: z.string().check(z.minLength(1), z.maxLength(1024)),
  /** Vendor support only: open the session for this tenant, under a live support access grant. */
  tenant_id: z.optional(uuid),
});

export const staffSession = z.object({ token: z.string(), expires_at: timestamp });

const publicJwk = z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string(), use: z.string(), n: z.string(), e: z.string() });
export const jwks = z.object({ keys: z.array(publicJwk) });

const apiKeyEnv = z.enum(['live', 'sandbox']);

export const apiKeyCreate = z.strictObject({
  /** Platform staff only: the tenant the key is for. */
  tenant_id: z.optional(uuid),
  /** For people: what the key is for. */
  name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
  env: z._default(apiKeyEnv, 'live'),
  scopes: z.array(tenantScope).check(z.minLength(1), z.maxLength(TENANT_SCOPES.length)),
  /** Binds the key to one client (merchant) of the tenant. */
  client_id: z.optional(uuid),
});

export const apiKeyCreated = z.object({
  id: z.string(),
  /** The full key: shown this once, never again. */
  key: z.string(),
  tenant_id: uuid,
  name: z.nullable(z.string()),
  env: apiKeyEnv,
  scopes: z.array(z.string()),
  client_id: z.nullable(uuid),
  created_at: timestamp,
});

export const apiKey = z.object({
  id: z.string(),
  tenant_id: uuid,
  name: z.nullable(z.string()),
  env: apiKeyEnv,
  scopes: z.array(z.string()),
  client_id: z.nullable(uuid),
  created_at: timestamp,
  expires_at: z.nullable(timestamp),
  last_used_at: z.nullable(timestamp),
  revoked_at: z.nullable(timestamp),
  created_by: z.string(),
});

export const authRoutes = {
  createUserToken: defineRoute({
    ...common,
    operationId: 'createUserToken',
    method: 'POST',
    path: '/v1/auth/user_tokens',
    handler: 'auth/create-user-token',
    summary: 'Mint a user token: for one wallet user, with a subset of the API key scopes',
    access: { principals: ['api_key'], scopes: [] },
    request: { body: userTokenCreate },
    response: { status: 201, body: userToken, description: 'The user token (RS256 JWT).' },
    errors: ['scope_exceeds_key', 'user_not_found'],
    idempotency: idempotencyOptional(),
    // RO: minting reads the user and signs (KMS); it writes nothing.
    tables: { wallet: 'RO' },
    capabilities: ['signsTokens'],
  }),
  createStaffSession: defineRoute({
    ...common,
    operationId: 'createStaffSession',
    method: 'POST',
    path: '/v1/auth/staff_sessions',
    handler: 'auth/create-staff-session',
    summary: 'Log a staff member in: a 15-minute session token',
    access: 'public',
    request: { body: staffSessionCreate },
    response: { status: 201, body: staffSession, description: 'The staff session token (RS256 JWT).' },
    // forbidden: a vendor support engineer naming a tenant without a live grant there.
    errors: ['unauthenticated', 'forbidden', 'rate_limited'],
    // RW: failed attempts and lockouts are counted on the account.
    tables: { wallet: 'RW' },
    capabilities: ['signsTokens'],
  }),
  getJwks: defineRoute({
    ...common,
    operationId: 'getJwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    handler: 'auth/get-jwks',
    summary: 'The public keys of wallet-issued tokens: the current key and the previous one',
    access: 'public',
    request: {},
    response: { status: 200, body: jwks, description: 'A JSON Web Key Set.' },
    errors: ['service_unavailable'],
    tables: { wallet: 'RO' },
  }),
  createApiKey: defineRoute({
    ...common,
    operationId: 'createApiKey',
    method: 'POST',
    path: '/v1/api_keys',
    handler: 'auth/create-api-key',
    summary: 'Issue a tenant API key; the full key is in this response only',
    access: keyManagers,
    request: { body: apiKeyCreate },
    response: { status: 201, body: apiKeyCreated, description: 'The new key, secret included (once).' },
    errors: ['insufficient_scope', 'tenant_not_found', 'client_not_found'],
    idempotency: idempotencyOptional(),
    tables: { wallet: 'RW' },
  }),
  listApiKeys: defineRoute({
    ...common,
    operationId: 'listApiKeys',
    method: 'GET',
    path: '/v1/api_keys',
    handler: 'auth/list-api-keys',
    summary: "List a tenant's API keys, newest first, without secrets",
    access: keyManagers,
    request: { query: z.strictObject({ tenant_id: z.optional(uuid), ...createdRange, cursor, limit: pageLimit() }) },
    response: { status: 200, body: page(apiKey), description: 'A page of keys.' },
    errors: ['insufficient_scope', 'tenant_not_found'],
    tables: { wallet: 'RO' },
  }),
  revokeApiKey: defineRoute({
    ...common,
    operationId: 'revokeApiKey',
    method: 'DELETE',
    path: '/v1/api_keys/{keyId}',
    handler: 'auth/revoke-api-key',
    summary: 'Revoke an API key (idempotent); other processes may accept it for up to 60 s more',
    access: keyManagers,
    request: { params: z.object({ keyId: uuid }) },
    response: { status: 200, body: apiKey, description: 'The key, revoked.' },
    errors: ['insufficient_scope', 'not_found'],
    tables: { wallet: 'RW' },
  }),
};
