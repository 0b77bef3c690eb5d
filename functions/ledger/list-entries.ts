import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.listEntries, async ({ request, service, consumerId }) => ({
  body: await service.listEntries(consumerId, request.params.ledgerId, request.params.accountId, request.query.cursor, request.query.limit),
}));
