import type { AnyRoute } from '../../http/route';
import { ACCESS_RECORDS_QUEUE } from '../access-records';

/**
 * What the credential hook of a route's function may hand to a queue, read from the route's own
 * manifest entry (its access, tables and capabilities), so the CDK stacks grant exactly these sends
 * and nothing decides them by operation id:
 *   - every authenticated wallet, auth and console route: the access records (an API key's last use,
 *     a support engineer's request under a grant; ../access-records.ts);
 *   - a route that admits IdP users but whose function may not create one: their first contact.
 */

/** IdP users seen for the first time on a route that may not create them (./idp.ts). */
export const IDP_FIRST_CONTACT_QUEUE = 'idpFirstContact';

/** How an IdP user unknown to the wallet is provisioned on this route. */
export type IdpFirstContact =
  /** Created before the route's service runs: the function may write users and open their ledger account. */
  | 'inline'
  /** Queued for the provisioning worker; the request is answered as for a user that does not exist yet. */
  | 'queued'
  /** The route refuses IdP users: verified, refused 403, nothing created. */
  | 'none';

const callsLedger = (route: AnyRoute): boolean => (route.capabilities ?? []).includes('callsLedger');

/** Creating a user writes WalletTable and opens its cash account in the tenant's ledger. */
export const mayProvisionUsers = (route: AnyRoute): boolean => route.tables?.wallet === 'RW' && callsLedger(route);

const admitsIdpUsers = (route: AnyRoute): boolean => route.access !== 'public' && route.access?.principals?.includes('idp_user') === true;

export function idpFirstContactOf(route: AnyRoute): IdpFirstContact {
  if (!admitsIdpUsers(route)) return 'none';
  return mayProvisionUsers(route) ? 'inline' : 'queued';
}

/** The queues the route's credential hook sends to (besides the route's own `sendsTo`). */
export function credentialQueues(route: AnyRoute): string[] {
  if (route.access === 'public' || route.api === 'ledger') return [];
  return [ACCESS_RECORDS_QUEUE, ...(idpFirstContactOf(route) === 'queued' ? [IDP_FIRST_CONTACT_QUEUE] : [])];
}
