import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.getLedger, async ({ request, service, consumerId }) => ({
  body: await service.getLedger(consumerId, request.params.ledgerId),
}));
