import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';
import { reconciliationReport } from '../../shared/wallet/reconciliation/orphans';
import { reconciliationRoutes } from '../../shared/wallet/reconciliation/routes';

export const handler = walletHandler(reconciliationRoutes.getLedgerReconciliation, async ({ request, principal, runtime }) => ({
  body: await reconciliationReport(runtime, tenantOf(principal), request.query),
}));
