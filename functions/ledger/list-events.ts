import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.listEvents, async ({ request, service, consumerId }) => ({
  body: await service.feed(consumerId, request.params.ledgerId, request.query.cursor, request.query.limit),
}));
