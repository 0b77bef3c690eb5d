import { AppError, type ErrorCode } from '../../kernel/errors';
import { LedgerRefusal } from '../../ledger-client/client';

/**
 * What a saga answers as a refusal, remembered under its key like a success: a domain refusal
 * before the ledger posted, or the ledger's own refusal. Anything else is transient and leaves the
 * key started for the retry or the sweeper.
 */

/** Domain refusals become the key's final answer; anything else is transient. */
export function asRefusal(error: unknown): AppError | undefined {
  if (error instanceof LedgerRefusal) {
    // The ledger has (or is writing) an answer under this key: a success it made must not be
    // answered as a refusal. Leave the key started; the retry or the sweeper replays it.
    if (error.code === 'idempotency_in_flight' || error.code === 'idempotency_key_reuse') return undefined;
    // The ledger's detail names its accounts and claim keys, which are not the wallet's to show.
    const code = ledgerCodeToWallet(error.code);
    return new AppError(code, REFUSAL_DETAILS[code]);
  }
  if (error instanceof AppError && error.status < 500 && error.code !== 'idempotency_in_flight') return error;
  return undefined;
}

/** The ledger is busy with the same key: the client retries, as it would for the wallet's own. */
export const inFlight = (): AppError => new AppError('idempotency_in_flight', 'Retry the request with the same Idempotency-Key.');

/** A transient failure as the client sees it: the ledger's in-flight key becomes the wallet's. */
export const asTransient = (error: unknown): unknown => (error instanceof LedgerRefusal && error.code === 'idempotency_in_flight' ? inFlight() : error);

/** What a wallet client reads for a ledger refusal (the catalogue's title for the others). */
const REFUSAL_DETAILS: Partial<Record<ErrorCode, string>> = {
  insufficient_funds: 'The available balance does not cover this operation.',
  limit_exceeded: 'This operation would pass a spending limit.',
  account_frozen: 'An account this operation moves money on is frozen.',
  account_closed: 'An account this operation moves money on is closed.',
};

/** Ledger codes a wallet client may see as they are; the ledger's 404s mean a wallet-side mismatch. */
function ledgerCodeToWallet(code: string): ErrorCode {
  const passThrough: ErrorCode[] = ['insufficient_funds', 'limit_exceeded', 'account_frozen', 'account_closed', 'conflict', 'precondition_failed'];
  return (passThrough as string[]).includes(code) ? (code as ErrorCode) : 'invalid_request';
}
