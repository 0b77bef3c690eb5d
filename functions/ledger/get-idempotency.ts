import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.getIdempotencyRecord, async ({ request, service, consumerId }) => ({
  body: await service.idempotencyRecord(consumerId, request.params.ledgerId, request.params.key),
}));
