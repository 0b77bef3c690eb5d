import { createRemoteJWKSet, errors as joseErrors, type JWSAlgorithm, type JWTVerifyGetKey } from 'jose';

/** What every verifier of third-party JWTs shares: the ledger's consumer tokens and the wallet's IdP tokens. */

/** Asymmetric only: an HMAC algorithm would let anyone holding the public key forge tokens. */
export const ACCEPTED_ALGORITHMS: readonly JWSAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/**
 * One key set per URL for the life of the process (a Lambda container), shared by every
 * authenticator: jose caches the keys for 10 minutes and refetches on an unknown `kid` at most
 * once per 30 s cooldown, so a key rotation is picked up without a flood of fetches.
 */
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

export function keySetFor(url: string): ReturnType<typeof createRemoteJWKSet> {
  let keySet = keySets.get(url);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(url));
    keySets.set(url, keySet);
  }
  return keySet;
}


/** The issuer's key set could not be read (issuer down, malformed key set): not the token's fault, a 503. */
export class KeySetUnavailable extends Error {
  constructor(cause: unknown) {
    super('key set unavailable', { cause });
  }
}

/**
 * The keys that verify an issuer's tokens: its JWKS URL (the issuer's well-known one unless given),
 * both URLs checked first, and a failure to read the key set that is not about the token thrown as
 * KeySetUnavailable. `owner` names the verifier in configuration errors ("the IdP").
 */
export function issuerKeys(options: { issuer: string; jwksUrl?: string; owner: string }): JWTVerifyGetKey {
  const jwksUrl = options.jwksUrl ?? `${options.issuer.replace(/\/+$/, '')}/.well-known/jwks.json`;
  assertSecureUrl(options.issuer, `${options.owner}'s issuer`);
  assertSecureUrl(jwksUrl, `${options.owner}'s JWKS URL`);
  const keySet = keySetFor(jwksUrl);
  return async (header, token) => {
    try {
      return await keySet(header, token);
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys || error instanceof joseErrors.JOSENotSupported) {
        throw error;
      }
      throw new KeySetUnavailable(error);
    }
  };
}

/** Keys served over plain HTTP could be swapped in transit; only loopback (the dev issuer) may use it. */
function assertSecureUrl(value: string, what: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${what} is not a URL: ${value}`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`${what} must be https (plain http only on loopback): ${value}`);
  }
}
