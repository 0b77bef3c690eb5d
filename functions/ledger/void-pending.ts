import { outcomeResult } from '../../shared/http/outcome';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.voidPending, async ({ request, service, consumerId, idempotency }) =>
  outcomeResult(await service.voidPending(consumerId, request.params.ledgerId, request.params.pendingId, idempotency(request.params.ledgerId)!)),
);
