import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.getPending, async ({ request, service, consumerId }) => ({
  body: await service.getPending(consumerId, request.params.ledgerId, request.params.pendingId),
}));
