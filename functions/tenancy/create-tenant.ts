import { createTenant } from '../../shared/wallet/tenancy/tenants';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.createTenant, async ({ request, principal, runtime }) => {
  const { tenant, replayed } = await createTenant(runtime, principal, request.body, { requestId: request.requestId, idempotencyKey: request.idempotencyKey });
  return { status: 201, body: tenant, ...(replayed ? { headers: { 'idempotent-replayed': 'true' } } : {}) };
});
