import { outcomeResult } from '../../shared/http/outcome';
import { ledgerHandler } from '../../shared/runtime/ledger';

export const handler = ledgerHandler(async () => (await import('../../shared/ledger/routes')).ledgerRoutes.createLedger, async ({ request, service, consumerId, idempotency }) =>
  outcomeResult(await service.createLedger(consumerId, request.body, idempotency(`CONSUMER#${consumerId}`))),
);
