import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.listTransactions, async ({ request, service, consumerId }) => ({
  body: await service.listTransactions(consumerId, request.params.ledgerId, request.query),
}));
