import type { CreatedRange, Page } from '../../aws/store';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import { readClient } from '../catalog/clients';
import type { WalletDeps } from '../deps';
import { merchantRecord } from '../merchants/merchants';
import { getPayoutRecord, listPayoutRecords, publicPayout } from './records';
import type { Payout, PayoutStatus } from './schemas';

/** The merchant a principal may pay out: any of the tenant's, or only its own client's for a key bound to a client. Refuses: not_found. */
export async function merchantScopeOf(runtime: WalletDeps, principal: Principal): Promise<string | undefined> {
  if (principal.clientId === undefined) return undefined;
  return (await readClient(runtime, principal.tenantId ?? null, principal.clientId)).merchant_id;
}

/** A payout of the tenant (a key bound to a client: of its merchant only). Refuses: not_found. */
export async function getPayout(runtime: WalletDeps, tenantId: string, principal: Principal, payoutId: string): Promise<Payout> {
  return publicPayout(await getPayoutRecord(runtime, tenantId, payoutId, await merchantScopeOf(runtime, principal)));
}

/**
 * The tenant's payouts, newest first, by merchant and status (a key bound to a client: its
 * merchant's only). Refuses: not_found (a merchant_id not the tenant's, or not the bound client's).
 */
export async function listPayouts(
  runtime: WalletDeps,
  tenantId: string,
  principal: Principal,
  query: { merchant_id?: string; status?: PayoutStatus; cursor?: string; limit: number } & CreatedRange,
): Promise<Page<Payout>> {
  const own = await merchantScopeOf(runtime, principal);
  if (own !== undefined && query.merchant_id !== undefined && query.merchant_id !== own) throw new AppError('not_found', `No merchant ${query.merchant_id}.`);
  const merchantId = own ?? query.merchant_id;
  if (merchantId !== undefined) await merchantRecord(runtime, tenantId, merchantId);
  const page = await listPayoutRecords(runtime, tenantId, { ...query, merchant_id: merchantId });
  return { data: page.data.map(publicPayout), next_cursor: page.next_cursor };
}
