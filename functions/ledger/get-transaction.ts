import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.getTransaction, async ({ request, service, consumerId }) => ({
  body: await service.getTransaction(consumerId, request.params.ledgerId, request.params.txnId),
}));
