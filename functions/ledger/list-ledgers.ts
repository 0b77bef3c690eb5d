import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.listLedgers, async ({ request, service, consumerId }) => ({
  body: await service.listLedgers(consumerId, request.query.cursor, request.query.limit),
}));
