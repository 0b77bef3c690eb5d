import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cashbackOf, pointsOf } from '../../shared/wallet/rewards/earn';

/** Reward amounts against exact big-integer references, over the whole amount range. */
describe('reward amounts', () => {
  it('cashback is flat + amount × bps / 10 000 rounded down, exactly, up to 2^45', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 1_000_000 }), (amount, bps, flat) => {
        const reference = BigInt(flat) + (BigInt(amount) * BigInt(bps)) / 10_000n;
        expect(BigInt(cashbackOf({ bps, flat }, amount))).toBe(reference);
      }),
      { numRuns: 2_000 },
    );
  });

  it('points are `points` for every whole `per_amount`, exactly, never past one ledger leg (2^45)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 }), fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 1_000_000 }), (amount, points, perAmount) => {
        const exact = (BigInt(amount) / BigInt(perAmount)) * BigInt(points);
        expect(BigInt(pointsOf({ points, per_amount: perAmount }, amount))).toBe(exact > 2n ** 45n ? 2n ** 45n : exact);
      }),
      { numRuns: 2_000 },
    );
  });
});
