import { LedgerRefusal } from '../../ledger-client/client';
import type { TenancyLedger } from '../deps';

const UUID_AT_END = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.?$/;

/**
 * Opens a ledger account exactly once and returns its id. A retry inside the ledger's idempotency
 * window replays the first answer; after it, the ledger refuses the duplicate with `conflict`
 * naming the existing account (its uniqueness is per owner, purpose and commodity), and that
 * account is the one this call opened before.
 */
export async function openAccountOnce(
  ledger: TenancyLedger,
  ledgerId: string,
  input: { owner_type: string; owner_id: string; purpose: string; commodity: string; floor: number | null },
  idempotencyKey: string,
): Promise<string> {
  try {
    return (await ledger.openAccount(ledgerId, input, idempotencyKey)).id;
  } catch (error) {
    const existing = error instanceof LedgerRefusal && error.code === 'conflict' ? UUID_AT_END.exec(error.detail)?.[1] : undefined;
    if (existing) return existing;
    throw error;
  }
}
