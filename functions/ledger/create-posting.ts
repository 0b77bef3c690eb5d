import { outcomeResult } from '../../shared/http/outcome';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.createPosting, async ({ request, service, consumerId, idempotency }) =>
  outcomeResult(await service.post(consumerId, request.params.ledgerId, request.body, idempotency(request.params.ledgerId)!)),
);
