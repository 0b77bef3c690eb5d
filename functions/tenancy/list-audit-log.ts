import { readAuditLog } from '../../shared/wallet/tenancy/audit-log';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.listAuditLog, async ({ request, principal, runtime }) => ({
  body: await readAuditLog(runtime, principal, request.query, request.requestId),
}));
