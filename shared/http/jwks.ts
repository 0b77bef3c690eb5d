import { createRemoteJWKSet, type JWSAlgorithm } from 'jose';

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

