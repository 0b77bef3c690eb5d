import { AppError, type ErrorCode } from '../kernel/errors';

/**
 * Opaque page cursors: the DynamoDB key a page ended at, base64url-encoded. A cursor that does not
 * decode to a key of the listing is the client's error, never a 500.
 */
export function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, code: ErrorCode = 'invalid_request', expectedKeys: readonly string[] = ['pk', 'sk']): Record<string, unknown> {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!key || typeof key !== 'object' || Array.isArray(key)) throw new Error('not an object');
    const record = key as Record<string, unknown>;
    if (!expectedKeys.every((name) => typeof record[name] === 'string')) throw new Error('missing keys');
    if (!Object.values(record).every((value) => typeof value === 'string' && value.length <= 1024)) throw new Error('bad values');
    return record;
  } catch {
    throw new AppError(code, 'cursor is not a cursor this listing returned.', { errors: [{ field: 'query.cursor', message: 'unknown cursor' }] });
  }
}
