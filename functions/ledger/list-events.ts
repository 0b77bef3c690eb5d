import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.listEvents, async ({ request, service, consumerId }) => ({
  body: await service.feed(consumerId, request.params.ledgerId, request.query.cursor, request.query.limit),
}));
