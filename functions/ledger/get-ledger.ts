import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.getLedger, async ({ request, service, consumerId }) => ({
  body: await service.getLedger(consumerId, request.params.ledgerId),
}));
