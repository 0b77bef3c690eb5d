import { createHash, createPublicKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { KmsSigningPort } from '../aws/kms';
import { ExpiringCache } from '../kernel/cache';
import { retryingOnce } from '../kernel/lazy';
import { CLIENT_ID_PATTERN, ISSUER_ALG, type IssuerClients, type IssuerSigner } from '../http/oidc-issuer';

/**
 * The ledger's embedded OIDC issuer in AWS (`-c ledgerIssuer=embedded`, the default of stage
 * `local`: LocalStack's free image has no Cognito). The protocol is shared/http/oidc-issuer.ts, the
 * dev issuer's; here are its AWS ports:
 *   - signing: a KMS asymmetric key (RSA_2048, SIGN_VERIFY), RS256 over the JWS signing input sent
 *     RAW; the private key never leaves KMS, the `kid` is the RFC 7638 thumbprint of the public key;
 *   - clients: one Secrets Manager secret per client, named `<prefix><client_id>`, holding
 *     `{client_id, client_secret}` (the wallet's is the stack's WalletLedgerCredentials). Adding a
 *     consumer is creating such a secret, as with Cognito it is creating an app client.
 */

/** Found clients are kept this long per container; a rotated secret is picked up within it. */
export const CLIENT_CACHE_TTL_MS = 5 * 60_000;
/** Unknown clients are remembered briefly, so guessing ids cannot make every request read Secrets Manager. */
export const UNKNOWN_CLIENT_TTL_MS = 30_000;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Signs with the KMS key `keyId`; the public key is read once per container (again after a failed read). */
export function kmsIssuerSigner(kms: KmsSigningPort, keyId: string): IssuerSigner {
  const publicJwk = retryingOnce(async (): Promise<JWK> => {
    const der = await kms.publicKey(keyId);
    const jwk = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' }).export({ format: 'jwk' }) as JWK;
    if (jwk.kty !== 'RSA') throw new Error(`KMS key ${keyId} is not an RSA key`);
    const kid = await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n, e: jwk.e });
    return { kty: 'RSA', n: jwk.n, e: jwk.e, kid, alg: ISSUER_ALG, use: 'sig' };
  });
  const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return {
    async sign(claims) {
      const { kid } = await publicJwk();
      const signingInput = `${b64url({ alg: ISSUER_ALG, kid })}.${b64url(claims)}`;
      const signature = await kms.sign(keyId, Buffer.from(signingInput, 'ascii'));
      return `${signingInput}.${Buffer.from(signature).toString('base64url')}`;
    },
    jwks: async () => ({ keys: [await publicJwk()] }),
  };
}

/** What a client secret holds. */
interface StoredClient {
  client_id: string;
  client_secret: string;
}

const isStoredClient = (value: unknown): value is StoredClient =>
  typeof value === 'object' && value !== null && typeof (value as StoredClient).client_id === 'string' && typeof (value as StoredClient).client_secret === 'string';

/**
 * Clients from Secrets Manager: `read(<prefix><client_id>)` (readJsonSecret in the function). A
 * secret that does not exist is an unknown client (401); any other failure throws (503).
 */
export function secretsManagerClients(prefix: string, read: (secretId: string) => Promise<unknown>, now: () => number = Date.now): IssuerClients {
  const known = new ExpiringCache<Buffer>({ ttlMs: CLIENT_CACHE_TTL_MS, maxEntries: 1_000 });
  const unknown = new ExpiringCache<true>({ ttlMs: UNKNOWN_CLIENT_TTL_MS, maxEntries: 10_000 });

  const expectedDigest = async (clientId: string): Promise<Buffer | undefined> => {
    const at = now();
    const cached = known.get(clientId, at);
    if (cached) return cached;
    if (unknown.get(clientId, at)) return undefined;
    let stored: unknown;
    try {
      stored = await read(`${prefix}${clientId}`);
    } catch (error) {
      if ((error as { name?: unknown }).name !== 'ResourceNotFoundException') throw error;
      stored = undefined;
    }
    if (!isStoredClient(stored) || stored.client_id !== clientId || !stored.client_secret) {
      unknown.set(clientId, true, at);
      return undefined;
    }
    const found = digest(stored.client_secret);
    known.set(clientId, found, at);
    return found;
  };

  return {
    async verify(clientId, secret) {
      if (!CLIENT_ID_PATTERN.test(clientId)) return false;
      const expected = await expectedDigest(clientId);
      // The same comparison for an unknown client as for a wrong secret.
      const match = timingSafeEqual(expected ?? digest(randomBytes(32).toString('base64url')), digest(secret));
      return expected !== undefined && match;
    },
  };
}
