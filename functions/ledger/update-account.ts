import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.updateAccount, async ({ request, service, consumerId }) => ({
  body: await service.updateAccount(consumerId, request.params.ledgerId, request.params.accountId, request.body),
}));
