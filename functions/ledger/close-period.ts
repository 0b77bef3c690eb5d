import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.closePeriod, async ({ request, service, consumerId }) => ({
  body: await service.closePeriod(consumerId, request.params.ledgerId, request.body.closed_through),
}));
