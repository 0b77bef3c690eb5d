import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.closePeriod, async ({ request, service, consumerId }) => ({
  body: await service.closePeriod(consumerId, request.params.ledgerId, request.body.closed_through),
}));
