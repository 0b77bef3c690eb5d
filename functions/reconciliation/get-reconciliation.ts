import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';
import { reconciliationReport } from '../../shared/wallet/reconciliation/orphans';

export const handler = walletHandler(async () => (await import('../../shared/wallet/reconciliation/routes')).reconciliationRoutes.getLedgerReconciliation, async ({ request, principal, runtime }) => ({
  body: await reconciliationReport(runtime, tenantOf(principal), request.query),
}));
