import { ledgerSummary } from '../../shared/wallet/tenancy/summary';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.getLedgerSummary, async ({ principal, runtime }) => ({
  body: await ledgerSummary(runtime, tenantOf(principal)),
}));
