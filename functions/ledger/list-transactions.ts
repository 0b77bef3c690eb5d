import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.listTransactions, async ({ request, service, consumerId }) => ({
  body: await service.listTransactions(consumerId, request.params.ledgerId, request.query),
}));
