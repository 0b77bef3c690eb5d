import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.getPending, async ({ request, service, consumerId }) => ({
  body: await service.getPending(consumerId, request.params.ledgerId, request.params.pendingId),
}));
