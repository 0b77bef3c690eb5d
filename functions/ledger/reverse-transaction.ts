import { outcomeResult } from '../../shared/http/outcome';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.reverseTransaction, async ({ request, service, consumerId, idempotency }) =>
  outcomeResult(await service.reverse(consumerId, request.params.ledgerId, request.params.txnId, request.body, idempotency(request.params.ledgerId)!)),
);
