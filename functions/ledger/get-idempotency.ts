import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.getIdempotencyRecord, async ({ request, service, consumerId }) => ({
  body: await service.idempotencyRecord(consumerId, request.params.ledgerId, request.params.key),
}));
