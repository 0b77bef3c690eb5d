import { describe, expect, it } from 'vitest';
import { derivedUuidv7, isUuid, uuidv7 } from '../../shared/kernel/ids';

describe('uuidv7', () => {
  it('gives RFC 9562 version-7 ids carrying the creation millisecond', () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 1);
  });

  it('never repeats and keeps increasing within a process, across many pool refills', () => {
    // 20,000 ids draw 360,000 random bytes: the 4 KB pool is refilled about ninety times.
    const ids = Array.from({ length: 20_000 }, () => uuidv7());
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i += 1) expect(ids[i]! > ids[i - 1]!, `${ids[i - 1]} then ${ids[i]}`).toBe(true);
    // The random tail differs id to id (no byte of the pool handed out twice).
    expect(new Set(ids.map((id) => id.slice(-12))).size).toBe(ids.length);
  });

  it('derives the same id from the same instant and seed, and another from another seed', () => {
    expect(derivedUuidv7(1_700_000_000_000, 'op:event:0')).toBe(derivedUuidv7(1_700_000_000_000, 'op:event:0'));
    expect(derivedUuidv7(1_700_000_000_000, 'op:event:1')).not.toBe(derivedUuidv7(1_700_000_000_000, 'op:event:0'));
  });
});
