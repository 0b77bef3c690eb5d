import { tenancyRoutes } from '../../shared/tenancy/routes';
import { ledgerSummary } from '../../shared/tenancy/summary';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.getLedgerSummary, async ({ principal, runtime }) => ({
  body: await ledgerSummary(runtime, tenantOf(principal)),
}));
