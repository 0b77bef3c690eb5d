import { outcomeResult } from '../../shared/http/outcome';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { importCatalog } from '../../shared/wallet/catalog/imports';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.importCatalog, async ({ request, principal, runtime }) =>
  outcomeResult(
    await importCatalog(runtime, principal, await authorizeClient(runtime, principal, request.params.clientId), request.body, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
