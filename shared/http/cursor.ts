import { AppError, type ErrorCode } from '../kernel/errors';

/**
 * THE cursor codec of every listing. A cursor is opaque to clients: base64url JSON of where the
 * page ended, bound to the listing that issued it and to the owner it lists for (a tenant, a user,
 * a ledger...). A cursor of another listing or another owner, or one that does not decode to this
 * listing's position, is the client's error (400 `invalid_request`; `invalid` on the ledger),
 * never a 500.
 */

export interface CursorBinding {
  /** What is listed: e.g. `gsi1` and a partition kind, or a service's own listing name. */
  listing: string;
  /** Whose items: the partition, or the id the listing is scoped to. */
  owner: string;
}

interface Encoded {
  l: string;
  o: string;
  p: Record<string, string>;
}

const MAX_VALUE_LENGTH = 1024;

export function encodeCursor(binding: CursorBinding, position: Record<string, unknown>): string {
  const p = Object.fromEntries(Object.entries(position).map(([name, value]) => [name, String(value)]));
  const encoded: Encoded = { l: binding.listing, o: binding.owner, p };
  return Buffer.from(JSON.stringify(encoded), 'utf8').toString('base64url');
}

export const unknownCursor = (code: ErrorCode = 'invalid_request') =>
  new AppError(code, 'cursor is not a cursor this listing returned.', { errors: [{ field: 'query.cursor', message: 'unknown cursor' }] });

/**
 * The position a cursor of this listing and owner holds, with exactly `keys`.
 * Refuses: `code` (invalid_request by default) for anything else.
 */
export function decodeCursor(cursor: string, binding: CursorBinding, keys: readonly string[], code: ErrorCode = 'invalid_request'): Record<string, string> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw unknownCursor(code);
  }
  if (!isEncoded(decoded) || decoded.l !== binding.listing || decoded.o !== binding.owner) throw unknownCursor(code);
  const names = Object.keys(decoded.p);
  if (names.length !== keys.length || !keys.every((key) => typeof decoded.p[key] === 'string')) throw unknownCursor(code);
  return decoded.p;
}

function isEncoded(value: unknown): value is Encoded {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const { l, o, p } = value as Record<string, unknown>;
  if (typeof l !== 'string' || typeof o !== 'string' || !p || typeof p !== 'object' || Array.isArray(p)) return false;
  return Object.values(p).every((entry) => typeof entry === 'string' && entry.length <= MAX_VALUE_LENGTH);
}
