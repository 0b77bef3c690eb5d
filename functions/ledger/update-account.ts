import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.updateAccount, async ({ request, service, consumerId }) => ({
  body: await service.updateAccount(consumerId, request.params.ledgerId, request.params.accountId, request.body),
}));
