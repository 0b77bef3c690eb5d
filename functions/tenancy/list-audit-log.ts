import { readAuditLog } from '../../shared/wallet/tenancy/audit-log';
import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(tenancyRoutes.listAuditLog, async ({ request, principal, runtime }) => ({
  body: await readAuditLog(runtime, principal, request.query, request.requestId),
}));
