import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.getAccount, async ({ request, service, consumerId }) => ({
  body: await service.getAccount(consumerId, request.params.ledgerId, request.params.accountId),
}));
