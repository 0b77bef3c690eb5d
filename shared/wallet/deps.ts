import type { JWK, JWTPayload } from 'jose';
import type { DocumentClient } from '../aws/dynamodb';
import type { Clock } from '../kernel/clock';
import type { IdGenerator } from '../kernel/ids';
import type { LedgerClient } from '../ledger-client/client';
import type { LedgerOperations } from '../ledger-client/loader';

/**
 * What the tenancy services take instead of reaching for singletons (STYLE.md: clients injected).
 * `WalletDeps` extends it; tests build one on DynamoDB Local and the embedded ledger.
 */
export interface StoreDeps {
  client: DocumentClient;
  /** The WalletTable's name. */
  table: string;
  clock: Clock;
  ids: IdGenerator;
}

/** The ledger operations tenancy uses, all through the ledger's HTTP contract. */
export type TenancyLedger = Pick<LedgerClient, 'createLedger' | 'openAccount' | 'listTransactions' | 'rollup'>;

export interface TenancyDeps extends StoreDeps {
  ledger(): TenancyLedger;
}

/** Who did something: a principal, or the platform itself (`system`) for seeding and workers. */
export interface Actor {
  kind: string;
  id: string;
}

/**
 * What every wallet service may take: the store, the token signer and the ledger client. The
 * composition root (shared/runtime/wallet.ts) builds one per container; tests build one on
 * DynamoDB Local and the embedded ledger.
 */
export interface WalletDeps extends StoreDeps {
  signer(): Promise<TokenSigner>;
  ledger(): LedgerOperations;
}

/**
 * The port every wallet token is signed through: a local key file or a KMS key (shared/wallet/auth/tokens.ts).
 * Declared here, below every domain, because WalletDeps carries it; auth/ builds and uses it.
 */
export interface TokenSigner {
  /** The key id of the current key, the one new tokens are signed with. */
  kid: string;
  /** Signs exactly these claims (the caller sets iss, aud, exp...), header `{alg: RS256, kid, typ: JWT}`. */
  sign(claims: JWTPayload): Promise<string>;
  /** The public keys of the current and the previous key. */
  jwks(): Promise<{ keys: JWK[] }>;
}
