import type { TenancyDeps } from '../deps';
import { feePlanOf, publicFeePlan, type PublicFeePlan } from './fees';
import { getTenantRecord } from './tenants';

/** The tenant's ledger in one view (spec part 2 "Ledger summary", part 4 item 21). */

export interface LedgerSummary {
  currency: string;
  rows: { owner_type: string; purpose: string; commodity: string; balance: number; accounts: number }[];
  fee_plan: PublicFeePlan;
}

/** Posted balances by owner type, purpose and commodity, from the ledger's rollup. Refuses: tenant_not_found. */
export async function ledgerSummary(deps: TenancyDeps, tenantId: string): Promise<LedgerSummary> {
  const tenant = await getTenantRecord(deps, tenantId);
  const rollup = await deps.ledger().rollup(tenant.ledger_id);
  return {
    currency: tenant.currency,
    rows: rollup.rows.map((row) => ({ owner_type: row.owner_type, purpose: row.purpose, commodity: row.commodity, balance: row.balance, accounts: row.accounts })),
    fee_plan: publicFeePlan(feePlanOf(tenant)),
  };
}
