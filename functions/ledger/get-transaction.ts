import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.getTransaction, async ({ request, service, consumerId }) => ({
  body: await service.getTransaction(consumerId, request.params.ledgerId, request.params.txnId),
}));
