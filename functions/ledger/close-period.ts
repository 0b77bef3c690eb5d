import { outcomeResult } from '../../shared/http/outcome';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.closePeriod, async ({ request, service, consumerId, idempotency }) =>
  outcomeResult(await service.closePeriod(consumerId, request.params.ledgerId, request.body.closed_through, idempotency(request.params.ledgerId))),
);
