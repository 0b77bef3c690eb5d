import { describe, expect, it } from 'vitest';
import { forEachDue } from '../../shared/aws/due-keys';
import { StoredItemInvalid } from '../../shared/kernel/codec';

/**
 * How the expiry and billing workers walk their due keys (shared/aws/due-keys.ts): an item no
 * codec can read does not stop the others; any other failure stops the run where it happened.
 */

async function* keys(...names: string[]) {
  for (const name of names) yield { pk: name, sk: 'S' };
}

describe('forEachDue', () => {
  it('does every other key, then fails the run with the first unreadable item', async () => {
    const done: string[] = [];
    const unreadable = new StoredItemInvalid('payment', 'amount', 'an integer', 'ten');
    const run = forEachDue(keys('a', 'bad', 'c', 'worse', 'd'), async ({ pk }) => {
      if (pk === 'bad') throw unreadable;
      if (pk === 'worse') throw new StoredItemInvalid('payment', 'status', 'a status', 7);
      done.push(pk);
    });
    await expect(run).rejects.toBe(unreadable);
    expect(done).toEqual(['a', 'c', 'd']);
  });

  it('stops at any other failure (the ledger down, DynamoDB refusing): the next run tries again', async () => {
    const done: string[] = [];
    const down = new Error('ledger down');
    const run = forEachDue(keys('a', 'b', 'c'), async ({ pk }) => {
      if (pk === 'b') throw down;
      done.push(pk);
    });
    await expect(run).rejects.toBe(down);
    expect(done).toEqual(['a']);
  });

  it('answers normally when every key was done', async () => {
    const done: string[] = [];
    await forEachDue(keys('a', 'b'), async ({ pk }) => void done.push(pk));
    expect(done).toEqual(['a', 'b']);
  });
});
