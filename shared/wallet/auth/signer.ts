import type { JWK, JWTPayload } from 'jose';

/** The port every wallet token is signed through: a local key file or a KMS key (shared/wallet/auth/tokens.ts). */
export interface TokenSigner {
  /** The key id of the current key, the one new tokens are signed with. */
  kid: string;
  /** Signs exactly these claims (the caller sets iss, aud, exp...), header `{alg: RS256, kid, typ: JWT}`. */
  sign(claims: JWTPayload): Promise<string>;
  /** The public keys of the current and the previous key. */
  jwks(): Promise<{ keys: JWK[] }>;
}
