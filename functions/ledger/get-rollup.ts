import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.getRollup, async ({ request, service, consumerId }) => ({
  body: await service.rollup(consumerId, request.params.ledgerId),
}));
