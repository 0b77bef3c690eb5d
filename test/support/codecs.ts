import { StoredItemInvalid } from '../../shared/kernel/codec';

/** What a failing decode throws (a stored item refused by its codec), or undefined when `decode` succeeds. */
export function decodeFailure(decode: () => unknown): StoredItemInvalid | undefined {
  try {
    decode();
    return undefined;
  } catch (error) {
    if (error instanceof StoredItemInvalid) return error;
    throw error;
  }
}
