/**
 * WalletTable keys of reconciliation (docs/reconciliation.md, docs/data-model.md). A tenant's
 * reconciliation is one partition: where the worker stands (its marks and counts) and the orphans
 * it found, sorted by `since`, so the endpoint reads one partition newest first and never the ledger.
 */
export const reconciliationKeys = {
  partition: (tenantId: string) => `RECON#${tenantId}`,
  /** The worker's marks: the ledger feed's cursor, checked_through, records_through, counts. */
  state: (tenantId: string) => ({ pk: `RECON#${tenantId}`, sk: 'STATE' }),
  /** An open orphan: since when (the transaction's or the record's time), then what (`txn` or `record`) and its id. */
  orphan: (tenantId: string, since: string, subject: 'txn' | 'record', id: string) => ({ pk: `RECON#${tenantId}`, sk: `ORPHAN#${since}#${subject}#${id}` }),
  /** Every orphan's sort key starts with it. */
  orphanPrefix: 'ORPHAN#',
};
