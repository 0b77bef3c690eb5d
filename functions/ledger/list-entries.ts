import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.listEntries, async ({ request, service, consumerId }) => ({
  body: await service.listEntries(consumerId, request.params.ledgerId, request.params.accountId, request.query.cursor, request.query.limit),
}));
