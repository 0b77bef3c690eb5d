import type { Page } from '../../aws/store';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import type { WalletDeps } from '../deps';
import { merchantItem } from '../payments/merchants';
import { merchantScopeOf } from './create';
import { getPayoutRecord, listPayoutRecords, publicPayout } from './records';
import type { Payout, PayoutStatus } from './schemas';

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
  query: { merchant_id?: string; status?: PayoutStatus; cursor?: string; limit: number },
): Promise<Page<Payout>> {
  const own = await merchantScopeOf(runtime, principal);
  if (own !== undefined && query.merchant_id !== undefined && query.merchant_id !== own) throw new AppError('not_found', `No merchant ${query.merchant_id}.`);
  const merchantId = own ?? query.merchant_id;
  if (merchantId !== undefined) await merchantItem(runtime, tenantId, merchantId);
  const page = await listPayoutRecords(runtime, tenantId, { ...query, merchant_id: merchantId });
  return { data: page.data.map(publicPayout), next_cursor: page.next_cursor };
}
