import { decodeJwt } from 'jose';
import type { Clock } from '../../kernel/clock';
import { config } from '../../kernel/config';
import type { Authenticator } from '../../http/handler';
import type { AnyRoute } from '../../http/route';
import { liveGrant, recordGrantAccess } from '../console/grants';
import { logger } from '../../kernel/log';
import type { WalletDeps } from '../deps';
import { queuedAccessRecorder, type AccessRecorder } from '../access-records';
import { apiKeyPrincipal, createApiKeyVerifier, type ApiKeyCache } from './api-key-verifier';
import { idpFirstContactOf } from './credential-queues';
import { createIdpVerifier, idpLookups, type IdpVerifierOptions } from './idp';
import type { Principal, PrincipalKind } from '../../http/principal';
import { isStaffRole, principalKindOf, roleHasTenant } from './staff-roles';
import type { TokenSigner } from '../deps';
import { RefusedCredential, verifyWalletToken } from './tokens';

/**
 * The wallet's credential hook (spec part 5): `Authorization: Bearer <credential>` resolves to
 * exactly one principal, or the request is refused 401 `unauthenticated`:
 *   - `sk_...`                      -> api_key (the key's tenant, client binding and scopes);
 *   - a JWT whose iss is WALLET_ISSUER -> user_token (token_use `user`) or a staff kind (`staff`);
 *   - a JWT whose iss is IDP_ISSUER    -> idp_user (provisioned on first contact).
 * The unverified `iss` only picks the verifier; each verifier checks signature, issuer, audience,
 * algorithm and times itself. No identity header set by a proxy is ever read.
 *
 * What a check must record leaves through queues (./credential-queues.ts), never as a write of the
 * request's function: an API key's last use and a support engineer's access go to the access
 * records (../access-records.ts); an IdP user's first contact on a route whose function may not
 * create users goes to the first-contact queue (./idp.ts).
 */

const BEARER = /^bearer +(\S+) *$/i;
const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** Far above any real token here; bounds parsing work per request. */
const MAX_CREDENTIAL_LENGTH = 8192;

export interface CredentialOptions {
  clock?: Clock;
  /** Default: this process's cache (shared with revocation). */
  apiKeyCache?: ApiKeyCache;
  walletIssuer?: string;
  /** Null turns IdP tokens off; default from IDP_ISSUER / IDP_AUDIENCE / IDP_JWKS_URL. */
  idp?: Pick<IdpVerifierOptions, 'issuer' | 'audience' | 'jwksUrl'> | null;
  /** Told the precise reason for each refusal; default: the debug log. */
  onRefused?(reason: string): void;
  /** Where access records go (key use, support access); default the accessRecords queue. */
  records?: AccessRecorder;
}

export function createWalletAuthenticator(runtime: WalletDeps, options: CredentialOptions = {}): Authenticator {
  const clock = options.clock ?? runtime.clock;
  const walletIssuer = options.walletIssuer ?? config.WALLET_ISSUER;
  const onRefused = options.onRefused ?? ((reason: string) => logger.debug('credential refused', { reason }));
  const records = options.records ?? queuedAccessRecorder;
  const verifyApiKey = createApiKeyVerifier({
    client: runtime.client,
    table: runtime.table,
    clock,
    cache: options.apiKeyCache,
    recordUse: (keyId, at) => records.send({ kind: 'api_key_used', key_id: keyId, at }),
  });
  const idpSettings =
    options.idp === undefined ? (config.IDP_ISSUER ? { issuer: config.IDP_ISSUER, audience: config.IDP_AUDIENCE, jwksUrl: config.IDP_JWKS_URL } : null) : options.idp;
  const verifyIdp = idpSettings ? createIdpVerifier({ ...idpSettings, clock, ...idpLookups(runtime) }) : undefined;
  let signer: TokenSigner | undefined;

  const resolve = async (credential: string, route: AnyRoute): Promise<Principal> => {
    if (credential.length > MAX_CREDENTIAL_LENGTH) throw new RefusedCredential('credential too long');
    if (credential.startsWith('sk_')) return apiKeyPrincipal(await verifyApiKey(credential));
    if (!JWS_COMPACT.test(credential)) throw new RefusedCredential('neither an API key nor a signed JWT');
    let issuer: unknown;
    try {
      issuer = decodeJwt(credential).iss;
    } catch {
      throw new RefusedCredential('the JWT payload does not decode');
    }
    if (issuer === walletIssuer) {
      signer ??= await runtime.signer();
      const claims = await verifyWalletToken(credential, ['user', 'staff'], { signer, issuer: walletIssuer, clock });
      if (claims.token_use === 'user') return userPrincipal(claims);
      const principal = staffPrincipal(claims);
      // Every request under a grant, on any route: those the route then refuses are recorded too.
      if (principal.grantId) await checkSupportAccess({ ...runtime, clock, records }, principal, route);
      return principal;
    }
    if (verifyIdp && issuer === idpSettings?.issuer) return verifyIdp(credential, idpFirstContactOf(route));
    throw new RefusedCredential(`unknown issuer ${JSON.stringify(issuer)}`);
  };

  return async ({ headers, route }) => {
    const header = headers.authorization;
    const credential = header ? BEARER.exec(header)?.[1] : undefined;
    try {
      if (!credential) throw new RefusedCredential(header ? 'Authorization is not a Bearer credential' : 'no Authorization header', 'A bearer credential is required.');
      return await resolve(credential, route);
    } catch (error) {
      if (error instanceof RefusedCredential) onRefused(error.reason);
      throw error;
    }
  };
}

function userPrincipal(claims: { sub: string; tenant_id?: string; scopes: string[]; env?: string }): Principal {
  if (!claims.tenant_id) throw new RefusedCredential('user token without tenant_id');
  return {
    kind: 'user_token',
    id: claims.sub,
    userId: claims.sub,
    tenantId: claims.tenant_id,
    ...(claims.env === 'sandbox' ? { sandbox: true } : {}),
    scopes: new Set(claims.scopes),
  };
}

/**
 * A vendor support session under a grant: every request is recorded against the grant before
 * anything can refuse it (spec part 4 item 16), and the grant must still stand (a revoked grant
 * ends the session at once: that refusal is recorded too). The record is queued and the request
 * goes on only once the queue holds it (recordGrantAccess refuses 503 otherwise).
 */
async function checkSupportAccess(deps: WalletDeps & { records: AccessRecorder }, principal: Principal, route: AnyRoute): Promise<void> {
  const grant = await liveGrant(deps, principal.id, principal.tenantId!);
  const live = grant !== undefined && grant.id === principal.grantId;
  await recordGrantAccess(deps, { id: principal.grantId!, tenant_id: principal.tenantId! }, principal, route.operationId, live ? 'admitted' : 'grant_ended');
  if (!live) throw new RefusedCredential('support access grant no longer live', 'The support access grant has ended.');
}

function staffPrincipal(claims: { sub: string; tenant_id?: string; role?: string; scopes: string[]; grant_id?: string }): Principal {
  if (!isStaffRole(claims.role)) throw new RefusedCredential(`staff token with role ${String(claims.role)}`);
  const kind: PrincipalKind = principalKindOf(claims.role);
  if (roleHasTenant(claims.role) && !claims.tenant_id) throw new RefusedCredential(`${kind} token without tenant_id`);
  const grantId = kind === 'vendor_support' ? claims.grant_id : undefined;
  if (kind === 'vendor_support' && claims.tenant_id && !grantId) throw new RefusedCredential('vendor support token for a tenant without a grant');
  return { kind, id: claims.sub, ...(claims.tenant_id ? { tenantId: claims.tenant_id } : {}), ...(grantId ? { grantId } : {}), scopes: new Set(claims.scopes) };
}
