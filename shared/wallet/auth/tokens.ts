import { createHash, createPublicKey, randomUUID } from 'node:crypto';
import { getItem } from '../../aws/store';
import {
  SignJWT,
  calculateJwkThumbprint,
  createLocalJWKSet,
  errors as joseErrors,
  importJWK,
  jwtVerify,
  type CryptoKey,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { createKmsSigningPort, type KmsSigningPort } from '../../aws/kms';
import { ExpiringCache } from '../../kernel/cache';
import { epochSeconds, systemClock, type Clock } from '../../kernel/clock';
import { config } from '../../kernel/config';
import { AppError } from '../../kernel/errors';
import { logger } from '../../kernel/log';
import type { StoreDeps } from '../deps';
import type { TokenSigner } from '../deps';
import { walletKeys } from '../keys';
import type { Principal } from '../../http/principal';

/**
 * Tokens the wallet issues itself (spec part 5): user tokens (minted with an API key, acting for
 * one user) and staff session tokens. Both are RS256 JWTs with a `kid`, issuer WALLET_ISSUER and
 * audience `wallet`, told apart by `token_use`. Every verifier reads the same public keys: the
 * current key and the previous one, so tokens signed just before a rotation stay valid until they
 * expire.
 *
 * Where the private key lives:
 *  - locally, WALLET_SIGNING_KEYS holds RSA private JWKs generated into .data/keys (local/signing-keys.ts);
 *  - in AWS, a KMS asymmetric key (RSA_2048, SIGN_VERIFY) signs: the private key never leaves KMS,
 *    and a function may sign only if its role has kms:Sign. Secrets Manager was rejected because
 *    the key would be readable by every function that verifies tokens.
 */

export const WALLET_AUDIENCE = 'wallet';
export type WalletTokenUse = 'user' | 'staff';

/** Our own tokens use one algorithm; nothing else is ever accepted for them. */
const ALG = 'RS256';
/** Leeway for exp and nbf (clock drift between Lambda hosts and clients). */
export const CLOCK_TOLERANCE_SECONDS = 30;


/**
 * A credential refused, with the precise reason for the log. The caller sees only `detail`
 * (so a probe learns nothing about which check failed).
 */
export class RefusedCredential extends AppError {
  constructor(
    readonly reason: string,
    detail = 'The credential is not valid.',
  ) {
    super('unauthenticated', detail);
    this.name = 'RefusedCredential';
  }
}

// ---------------------------------------------------------------------------------------------
// Signers

export interface SigningKeySet {
  current: JWK;
  previous?: JWK;
}

/** Parses WALLET_SIGNING_KEYS; a malformed value is a deployment error, so it throws plainly. */
export function parseSigningKeys(text: string): SigningKeySet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('WALLET_SIGNING_KEYS is not JSON');
  }
  const isPrivateRsa = (jwk: unknown): jwk is JWK =>
    !!jwk && typeof jwk === 'object' && (jwk as JWK).kty === 'RSA' && typeof (jwk as JWK).d === 'string' && typeof (jwk as JWK).n === 'string';
  const set = parsed as { current?: unknown; previous?: unknown };
  if (!isPrivateRsa(set?.current)) throw new Error('WALLET_SIGNING_KEYS.current must be an RSA private JWK');
  if (set.previous !== undefined && set.previous !== null && !isPrivateRsa(set.previous)) {
    throw new Error('WALLET_SIGNING_KEYS.previous must be an RSA private JWK');
  }
  return { current: set.current, previous: (set.previous as JWK | null | undefined) ?? undefined };
}

/** The JWK thumbprint (RFC 7638) of the public half: stable, and the same wherever it is computed. */
export const kidOf = (jwk: JWK): Promise<string> => calculateJwkThumbprint({ kty: 'RSA', n: jwk.n, e: jwk.e });

export function publicJwk(jwk: JWK, kid: string): JWK {
  return { kty: 'RSA', n: jwk.n, e: jwk.e, kid, alg: ALG, use: 'sig' };
}

/** Signs with RSA private JWKs held in memory (the embedded platform and tests). */
export async function createLocalSigner(keys: SigningKeySet): Promise<TokenSigner> {
  const currentKid = keys.current.kid ?? (await kidOf(keys.current));
  const privateKey = (await importJWK({ ...keys.current, alg: ALG }, ALG)) as CryptoKey;
  const published = [publicJwk(keys.current, currentKid)];
  if (keys.previous) {
    const previousKid = keys.previous.kid ?? (await kidOf(keys.previous));
    if (previousKid !== currentKid) published.push(publicJwk(keys.previous, previousKid));
  }
  return {
    kid: currentKid,
    sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg: ALG, kid: currentKid, typ: 'JWT' }).sign(privateKey),
    jwks: async () => ({ keys: published.map((key) => ({ ...key })) }),
  };
}

/**
 * The two KMS calls the signer makes (shared/aws/kms.ts implements them with @aws-sdk/client-kms):
 * `sign` is SignCommand({KeyId, Message, MessageType: 'RAW',
 * SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256'}).Signature, `publicKey` is
 * GetPublicKeyCommand({KeyId}).PublicKey (DER SubjectPublicKeyInfo).
 */
/** KMS key ids are not secret but are account details; the kid is a hash of it instead. */
export const kmsKid = (keyId: string): string => createHash('sha256').update(keyId).digest('base64url').slice(0, 22);

/**
 * Signs with a KMS asymmetric key: RSASSA_PKCS1_V1_5_SHA_256 over the JWS signing input is
 * exactly RS256. The public keys come from GetPublicKey once per container.
 */
export function createKmsSigner(options: { kms: KmsSigningPort; keyId: string; previousKeyId?: string }): TokenSigner {
  const { kms, keyId } = options;
  const kid = kmsKid(keyId);
  let published: Promise<{ keys: JWK[] }> | undefined;
  const loadPublished = async () => {
    const ids = [keyId, ...(options.previousKeyId && options.previousKeyId !== keyId ? [options.previousKeyId] : [])];
    const keys = await Promise.all(
      ids.map(async (id) => {
        let der: Uint8Array;
        try {
          der = await kms.publicKey(id);
        } catch (error) {
          throw kmsUnavailable('GetPublicKey', error);
        }
        const jwk = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' }).export({ format: 'jwk' }) as JWK;
        return publicJwk(jwk, kmsKid(id));
      }),
    );
    return { keys };
  };
  return {
    kid,
    async sign(claims) {
      const header = Buffer.from(JSON.stringify({ alg: ALG, kid, typ: 'JWT' })).toString('base64url');
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      const signingInput = `${header}.${payload}`;
      let signature: Uint8Array;
      try {
        signature = await kms.sign(keyId, Buffer.from(signingInput, 'ascii'));
      } catch (error) {
        throw kmsUnavailable('Sign', error);
      }
      return `${signingInput}.${Buffer.from(signature).toString('base64url')}`;
    },
    jwks() {
      published ??= loadPublished().catch((error: unknown) => {
        // A failed fetch is not remembered: the next call tries again.
        published = undefined;
        throw error;
      });
      return published;
    },
  };
}

/**
 * KMS throttled, unreachable or refused: the caller gets a retryable 503, the log gets the cause
 * (AccessDenied or NotFound here is a deployment error: the role or WALLET_SIGNING_KMS_* is wrong).
 */
function kmsUnavailable(operation: string, error: unknown): AppError {
  logger.error(`KMS ${operation} failed`, { error: error as Error });
  return new AppError('service_unavailable', 'Tokens cannot be signed or verified right now; retry later.');
}

/**
 * The signer this deployment is configured with. Locally WALLET_SIGNING_KEYS; in AWS
 * WALLET_SIGNING_KMS_KEY_ID (+ WALLET_SIGNING_KMS_PREVIOUS_KEY_ID) through KMS: the container's
 * KMS client unless `kms` is given. Nothing calls KMS until a token is signed or verified.
 */
export async function loadTokenSigner(options: { kms?: KmsSigningPort } = {}): Promise<TokenSigner> {
  if (config.WALLET_SIGNING_KEYS) return createLocalSigner(parseSigningKeys(config.WALLET_SIGNING_KEYS));
  if (config.WALLET_SIGNING_KMS_KEY_ID) {
    return createKmsSigner({
      kms: options.kms ?? createKmsSigningPort(),
      keyId: config.WALLET_SIGNING_KMS_KEY_ID,
      previousKeyId: config.WALLET_SIGNING_KMS_PREVIOUS_KEY_ID,
    });
  }
  throw new AppError('service_unavailable', 'No wallet signing key is configured.');
}

// ---------------------------------------------------------------------------------------------
// Minting and verifying

export interface MintInput {
  use: WalletTokenUse;
  subject: string;
  scopes: readonly string[];
  ttlSeconds: number;
  /** Extra claims (tenant_id, role, key_id); they cannot override the registered ones. */
  claims?: Record<string, string | undefined>;
  clock?: Clock;
  issuer?: string;
}

export async function mintWalletToken(signer: TokenSigner, input: MintInput): Promise<{ token: string; expiresAt: Date }> {
  const now = epochSeconds((input.clock ?? systemClock).now());
  const exp = now + input.ttlSeconds;
  const extra = Object.fromEntries(Object.entries(input.claims ?? {}).filter(([, value]) => value !== undefined));
  const token = await signer.sign({
    ...extra,
    iss: input.issuer ?? config.WALLET_ISSUER,
    aud: WALLET_AUDIENCE,
    sub: input.subject,
    iat: now,
    nbf: now,
    exp,
    jti: randomUUID(),
    token_use: input.use,
    scope: input.scopes.join(' '),
  });
  return { token, expiresAt: new Date(exp * 1000) };
}

export interface WalletTokenClaims {
  sub: string;
  token_use: WalletTokenUse;
  scopes: string[];
  tenant_id?: string;
  role?: string;
  key_id?: string;
  /** A user token minted with a sandbox API key is a sandbox credential too. */
  env?: string;
  /** A vendor support session's support access grant. */
  grant_id?: string;
  exp: number;
}

/** One local key set per signer, built from its JWKS on first use. */
const keySets = new WeakMap<TokenSigner, Promise<JWTVerifyGetKey>>();

function keySetOf(signer: TokenSigner): Promise<JWTVerifyGetKey> {
  let keySet = keySets.get(signer);
  if (!keySet) {
    keySet = signer.jwks().then((jwks) => createLocalJWKSet(jwks));
    keySet.catch(() => keySets.delete(signer));
    keySets.set(signer, keySet);
  }
  return keySet;
}

/**
 * A token whose signature and claims verified is not verified again for this long, never past its
 * `exp` and the leeway: a client sends the same token on every request for its life, and an RSA
 * verification is most of what authenticating one costs. The signer's key set is fixed for the
 * process (keySetOf), so nothing a remembered token was checked against can change meanwhile;
 * what the token may do (`token_use`, the principal's state) is still checked on every request.
 */
const VERIFIED_TOKEN_TTL_MS = 60_000;
const VERIFIED_TOKEN_MAX_ENTRIES = 1000;
const verifiedTokens = new WeakMap<TokenSigner, ExpiringCache<JWTPayload>>();

/**
 * Verifies a wallet-issued token: RS256 only, a `kid` of the current or previous key, issuer,
 * audience `wallet`, exp and nbf with 30 s leeway, and `token_use` among `expectedUse`.
 * Refuses: RefusedCredential (unauthenticated) for anything else.
 */
export async function verifyWalletToken(
  token: string,
  expectedUse: WalletTokenUse | readonly WalletTokenUse[],
  options: { signer: TokenSigner; issuer?: string; clock?: Clock },
): Promise<WalletTokenClaims> {
  const uses: readonly WalletTokenUse[] = typeof expectedUse === 'string' ? [expectedUse] : expectedUse;
  const issuer = options.issuer ?? config.WALLET_ISSUER;
  const nowMs = (options.clock ?? systemClock).now().getTime();
  let verified = verifiedTokens.get(options.signer);
  if (!verified) verifiedTokens.set(options.signer, (verified = new ExpiringCache({ ttlMs: VERIFIED_TOKEN_TTL_MS, maxEntries: VERIFIED_TOKEN_MAX_ENTRIES })));
  const cacheKey = `${issuer}\n${token}`;
  let payload = verified.get(cacheKey, nowMs);
  if (!payload) {
    payload = await verifySignedToken(token, options.signer, issuer, nowMs);
    verified.set(cacheKey, payload, nowMs, ((payload.exp as number) + CLOCK_TOLERANCE_SECONDS) * 1000);
  }
  const use = payload.token_use;
  if (typeof use !== 'string' || !uses.includes(use as WalletTokenUse)) throw new RefusedCredential(`token_use is ${String(use)}`);
  if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw new RefusedCredential('sub is missing');
  const text = (name: string) => (typeof payload[name] === 'string' ? (payload[name] as string) : undefined);
  return {
    sub: payload.sub,
    token_use: use as WalletTokenUse,
    scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
    tenant_id: text('tenant_id'),
    role: text('role'),
    key_id: text('key_id'),
    env: text('env'),
    grant_id: text('grant_id'),
    exp: payload.exp as number,
  };
}

/** The signature and the registered claims, against the signer's key set. */
async function verifySignedToken(token: string, signer: TokenSigner, issuer: string, nowMs: number): Promise<JWTPayload> {
  let keySet: JWTVerifyGetKey;
  try {
    keySet = await keySetOf(signer);
  } catch (error) {
    throw new AppError('service_unavailable', `The wallet's signing keys cannot be read right now; retry later. (${(error as Error).name})`);
  }
  try {
    const { payload } = await jwtVerify(token, keySet, {
      issuer,
      audience: WALLET_AUDIENCE,
      algorithms: [ALG],
      requiredClaims: ['exp', 'sub', 'iat'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(nowMs),
    });
    return payload;
  } catch (error) {
    const reason = `wallet token verification failed: ${(error as Error).message}`;
    if (error instanceof joseErrors.JWTExpired) throw new RefusedCredential(reason, 'The token has expired.');
    throw new RefusedCredential(reason);
  }
}

// ---------------------------------------------------------------------------------------------
// User tokens (spec part 4 item 1)

export const USER_TOKEN_TTL = { defaultSeconds: 900, minSeconds: 60, maxSeconds: 3600 } as const;

export interface UserTokenRequest {
  user_external_id: string;
  scopes: readonly string[];
  ttl_seconds: number;
}

export interface UserToken {
  token: string;
  token_type: 'Bearer';
  expires_at: string;
  user_id: string;
  scopes: string[];
}

/**
 * Mints a user token with an API key: the scopes must be a subset of the key's, the user is found
 * by its external id in the key's tenant.
 * Refuses: scope_exceeds_key (403) for a scope the key lacks; user_not_found (404).
 */
export async function issueUserToken(runtime: StoreDeps & { signer(): Promise<TokenSigner> }, key: Principal, input: UserTokenRequest): Promise<UserToken> {
  if (key.kind !== 'api_key' || !key.tenantId) throw new AppError('forbidden', 'User tokens are minted with an API key.');
  const scopes = [...new Set(input.scopes)];
  const exceeding = scopes.filter((scope) => !key.scopes.has(scope));
  if (exceeding.length > 0) {
    throw new AppError('scope_exceeds_key', `The API key does not hold: ${exceeding.join(', ')}.`);
  }
  const found = await getItem(runtime, walletKeys.userExternal(key.tenantId, input.user_external_id));
  const userId = found?.user_id;
  if (typeof userId !== 'string') throw new AppError('user_not_found', `No user with external id ${JSON.stringify(input.user_external_id)}.`);
  const signer = await runtime.signer();
  const { token, expiresAt } = await mintWalletToken(signer, {
    use: 'user',
    subject: userId,
    scopes,
    ttlSeconds: input.ttl_seconds,
    claims: { tenant_id: key.tenantId, key_id: key.id, env: key.sandbox ? 'sandbox' : 'live' },
    clock: runtime.clock,
  });
  return { token, token_type: 'Bearer', expires_at: expiresAt.toISOString(), user_id: userId, scopes };
}
