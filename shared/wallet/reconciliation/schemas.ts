import * as z from '../../kernel/zod';
import { cursor, hasMore, pageLimit, timestamp, uuid } from '../../http/schemas';

/** Shapes of GET /v1/ledger/reconciliation (docs/reconciliation.md). */

export const orphanKind = z.enum(['ledger_transaction', 'wallet_record']);

export const orphanReason = z.enum([
  'no_record',
  'record_names_other',
  'no_reference',
  'unknown_type',
  'reversal',
  'no_transaction',
  'transaction_missing',
  'transaction_mismatch',
]);

export const orphan = z
  .object({
    kind: orphanKind.check(z.describe('`ledger_transaction`: money the ledger moved that no wallet record explains; `wallet_record`: a money record the ledger does not back.')),
    id: uuid.check(z.describe('The ledger transaction, or the wallet record (a subscription charge: its subscription; cashback and points: their payment).')),
    type: z.string().check(z.describe("The transaction's type (transfer, payment, ...), or the record's (transfer, payment, subscription_charge, ...).")),
    reference_id: z.nullable(z.string()).check(z.describe("The transaction's reference, or the one the record's posting carries.")),
    ledger_transaction_id: z.nullable(uuid).check(z.describe('The transaction: the orphan itself, or the one the record names (null: it names none).')),
    amount: z.int().check(z.describe("Minor units of `commodity`: a transaction's debits in its first leg's commodity, a record's amount.")),
    commodity: z.string(),
    reason: orphanReason.check(
      z.describe('no_record, record_names_other, no_reference, unknown_type, reversal (a transaction); no_transaction, transaction_missing, transaction_mismatch (a record).'),
    ),
    since: timestamp.check(z.describe('When the transaction was posted or the record written.')),
    detected_at: timestamp.check(z.describe('When the worker first listed it.')),
  })
  .check(z.meta({ id: 'ReconciliationOrphan' }));

export const reconciliation = z
  .object({
    checked_through: z.nullable(timestamp).check(z.describe('Every transaction posted and every money record written before this time has been matched; null before the first run.')),
    transactions_checked: z.int().check(z.describe("Ledger transactions the worker has matched in the tenant's ledger so far.")),
    orphans: z.array(orphan).check(z.describe('Open orphans, newest first (by since); an orphan that is matched later leaves the list.')),
    has_more: hasMore,
    next_cursor: z.nullable(z.string()).check(z.describe('Pass as `cursor` for more orphans; null on the last page.')),
  })
  .check(z.meta({ id: 'Reconciliation' }));

export const reconciliationQuery = z.strictObject({ cursor, limit: pageLimit() });

export type Orphan = z.infer<typeof orphan>;
export type OrphanReason = z.infer<typeof orphanReason>;
export type Reconciliation = z.infer<typeof reconciliation>;
