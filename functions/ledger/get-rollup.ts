import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.getRollup, async ({ request, service, consumerId }) => ({
  body: await service.rollup(consumerId, request.params.ledgerId),
}));
