import { readAuditLog } from '../../shared/tenancy/audit-log';
import { tenancyRoutes } from '../../shared/tenancy/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.listAuditLog, async ({ request, principal, runtime }) => ({
  body: await readAuditLog(runtime, principal, request.query, request.requestId),
}));
