import { defineRoute } from '../../http/route';
import * as s from './schemas';

/**
 * Reconciliation on the wallet API (docs/reconciliation.md): where the continuous match of the
 * tenant's ledger and its wallet records stands, and its open orphans. It reads what the worker
 * stored, never the ledger, so it is cheap. Like the ledger summary (spec part 5 rule 2), it
 * refuses user tokens outright.
 */

export const reconciliationRoutes = {
  getLedgerReconciliation: defineRoute({
    api: 'wallet',
    operationId: 'getLedgerReconciliation',
    method: 'GET',
    path: '/v1/ledger/reconciliation',
    handler: 'reconciliation/get-reconciliation',
    summary: "Reconciliation: how far the tenant's ledger and wallet records have been matched, and the orphans: money without its record, or a record without its money",
    tags: ['ledger'],
    access: { principals: ['api_key', 'tenant_staff', 'partner_admin'], scopes: ['ledger:read'] },
    request: { query: s.reconciliationQuery },
    response: { status: 200, body: s.reconciliation, description: 'The reconciliation: checked_through, transactions_checked and a page of open orphans, newest first.' },
    errors: [],
    tables: { wallet: 'RO' },
  }),
};
