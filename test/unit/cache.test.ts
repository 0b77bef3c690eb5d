import { describe, expect, it } from 'vitest';
import { ExpiringCache } from '../../shared/kernel/cache';

describe('ExpiringCache', () => {
  it('answers a value until its TTL, or until the earlier bound it was given', () => {
    const cache = new ExpiringCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    cache.set('a', 'one', 0);
    cache.set('b', 'two', 0, 5_000);
    expect(cache.get('a', 59_999)).toBe('one');
    expect(cache.get('a', 60_000)).toBeUndefined();
    expect(cache.get('b', 4_999)).toBe('two');
    expect(cache.get('b', 5_000)).toBeUndefined();
  });

  it('lets the oldest entry go when full, and forgets on delete', () => {
    const cache = new ExpiringCache<number>({ ttlMs: 60_000, maxEntries: 2 });
    cache.set('a', 1, 0);
    cache.set('b', 2, 0);
    cache.set('a', 1, 0); // written again: now the newest
    cache.set('c', 3, 0);
    expect([cache.get('a', 1), cache.get('b', 1), cache.get('c', 1)]).toEqual([1, undefined, 3]);
    cache.delete('c');
    expect(cache.get('c', 1)).toBeUndefined();
  });
});
