import { ledgerRoutes } from '../../shared/ledger/routes';
import { outcomeResult } from '../../shared/http/outcome';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(ledgerRoutes.createPending, async ({ request, service, consumerId, idempotency }) =>
  outcomeResult(await service.reserve(consumerId, request.params.ledgerId, request.body, idempotency(request.params.ledgerId)!)),
);
