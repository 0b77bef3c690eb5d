import * as z from 'zod';
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
    kind: orphanKind.describe('`ledger_transaction`: money the ledger moved that no wallet record explains; `wallet_record`: a money record the ledger does not back.'),
    id: uuid.describe('The ledger transaction, or the wallet record (a subscription charge: its subscription; cashback and points: their payment).'),
    type: z.string().describe("The transaction's type (transfer, payment, ...), or the record's (transfer, payment, subscription_charge, ...)."),
    reference_id: z.string().nullable().describe("The transaction's reference, or the one the record's posting carries."),
    ledger_transaction_id: uuid.nullable().describe('The transaction: the orphan itself, or the one the record names (null: it names none).'),
    amount: z.number().int().describe("Minor units of `commodity`: a transaction's debits in its first leg's commodity, a record's amount."),
    commodity: z.string(),
    reason: orphanReason.describe(
      'no_record, record_names_other, no_reference, unknown_type, reversal (a transaction); no_transaction, transaction_missing, transaction_mismatch (a record).',
    ),
    since: timestamp.describe('When the transaction was posted or the record written.'),
    detected_at: timestamp.describe('When the worker first listed it.'),
  })
  .meta({ id: 'ReconciliationOrphan' });

export const reconciliation = z
  .object({
    checked_through: timestamp.nullable().describe('Every transaction posted and every money record written before this time has been matched; null before the first run.'),
    transactions_checked: z.number().int().describe("Ledger transactions the worker has matched in the tenant's ledger so far."),
    orphans: z.array(orphan).describe('Open orphans, newest first (by since); an orphan that is matched later leaves the list.'),
    has_more: hasMore,
    next_cursor: z.string().nullable().describe('Pass as `cursor` for more orphans; null on the last page.'),
  })
  .meta({ id: 'Reconciliation' });

export const reconciliationQuery = z.object({ cursor, limit: pageLimit() }).strict();

export type Orphan = z.infer<typeof orphan>;
export type OrphanReason = z.infer<typeof orphanReason>;
export type Reconciliation = z.infer<typeof reconciliation>;
