import type { Principal } from '../../http/principal';
import { SANDBOX_GATEWAY } from './sandbox';
import { AppError } from '../../kernel/errors';
import { queryPage, type Page, type CreatedRange } from '../../aws/store';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import type { WalletDeps } from '../deps';
import { topupProcessors } from './gateways';
import { topupKeys } from './keys';
import type { TopupProcessor } from './processors';
import { getTopupRecord, publicTopup, toTopupRecord } from './records';
import type { Topup } from './schemas';

/** Reading top-ups and the gateways a tenant may use. */

type Runtime = WalletDeps;

export async function getTopup(runtime: Runtime, tenantId: string, topupId: string, options: { selfOnly?: string } = {}): Promise<Topup> {
  return publicTopup(await getTopupRecord(runtime, tenantId, topupId, options));
}

/**
 * The tenant's top-ups, newest first, or one user's (`user_id`, or always the own user for a user
 * token). Refuses: user_not_found (another tenant's user, or another user for a user token),
 * invalid_request (cursor).
 */
export async function listTopups(
  runtime: Runtime,
  tenantId: string,
  query: { user_id?: string; cursor?: string; limit: number } & CreatedRange,
  options: { selfOnly?: string } = {},
): Promise<Page<Topup>> {
  if (options.selfOnly !== undefined && query.user_id !== undefined && query.user_id !== options.selfOnly) {
    throw new AppError('user_not_found', `No user ${query.user_id}.`);
  }
  const userId = options.selfOnly ?? query.user_id;
  if (userId !== undefined) await getUserRecord(runtime, tenantId, userId);
  const result = await queryPage(runtime, {
    index: userId === undefined ? 'gsi1' : 'gsi2',
    partition: userId === undefined ? topupKeys.tenantTopups(tenantId) : topupKeys.userTopups(userId),
    cursor: query.cursor, created: query,
    limit: query.limit,
  });
  return { data: result.items.map((item) => publicTopup(toTopupRecord(item))), next_cursor: result.next_cursor };
}

/**
 * The configured gateways that accept the tenant's currency (the only currency a top-up may
 * have), each with its flow. Refuses: tenant_not_found.
 */
/** The gateways this credential may top up through in the tenant's currency: the sandbox only to sandbox credentials. */
export async function listTopupGateways(
  runtime: Runtime,
  tenantId: string,
  principal: Pick<Principal, 'sandbox'>,
): Promise<{ data: { name: string; flow: TopupProcessor['flow']; currencies: string[] }[] }> {
  const tenant = await getTenantRecord(runtime, tenantId);
  const data = [...topupProcessors().values()]
    .filter((processor) => processor.currencies.includes(tenant.currency))
    .filter((processor) => processor.name !== SANDBOX_GATEWAY || principal.sandbox === true)
    .map((processor) => ({ name: processor.name, flow: processor.flow, currencies: [tenant.currency] }));
  return { data };
}

// Shared ------------------------------------------------------------------------------------------

/**
 * The user a request acts for: a user token's own (naming another looks missing), else the one
 * named. Refuses: user_not_found, invalid_request (a tenant credential named none).
 */
