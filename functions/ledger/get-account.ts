import { ledgerRoutes } from '../../shared/ledger/routes';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.getAccount, async ({ request, service, consumerId }) => ({
  body: await service.getAccount(consumerId, request.params.ledgerId, request.params.accountId),
}));
