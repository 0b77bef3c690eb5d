import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.listLedgers, async ({ request, service, consumerId }) => ({
  body: await service.listLedgers(consumerId, request.query.cursor, request.query.limit),
}));
