import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFee, MAX_BPS, type FeeRule } from '../../shared/wallet/tenancy/fees';
import { referenceFee } from '../support/fees';

/** The fee of every money path: a model in BigInt is simpler than the code. */

const safeAmount = fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.maxSafeNat());
const rule = fc
  .record({
    bps: fc.integer({ min: 0, max: MAX_BPS }),
    flat: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.maxSafeNat()),
    min_fee: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.maxSafeNat()),
    cap: fc.option(fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.maxSafeNat()), { nil: null }),
  })
  .map(({ bps, flat, min_fee, cap }): FeeRule => ({ bps, flat, min_fee, max_fee: cap === null ? null : Math.max(cap, min_fee) }));

describe('computeFee', () => {
  it('equals the BigInt reference for every rule and safe amount', () => {
    fc.assert(
      fc.property(rule, safeAmount, (r, amount) => {
        const reference = referenceFee(r, amount);
        if (reference > BigInt(Number.MAX_SAFE_INTEGER)) {
          expect(() => computeFee(r, amount)).toThrow(RangeError);
        } else {
          expect(BigInt(computeFee(r, amount))).toBe(reference);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('rounds the bps part half up and clamps to min_fee and max_fee', () => {
    const r = (bps: number, extra: Partial<FeeRule> = {}): FeeRule => ({ bps, flat: 0, min_fee: 0, max_fee: null, ...extra });
    expect(computeFee(r(100), 49)).toBe(0); // 0.49
    expect(computeFee(r(100), 50)).toBe(1); // 0.5 rounds up
    expect(computeFee(r(250), 1_000)).toBe(25);
    expect(computeFee(r(250, { flat: 30 }), 1_000)).toBe(55);
    expect(computeFee(r(100, { min_fee: 10 }), 100)).toBe(10);
    expect(computeFee(r(10_000, { max_fee: 500 }), 1_000_000)).toBe(500);
    expect(computeFee(r(0), 0)).toBe(0);
    expect(() => computeFee(r(100), -1)).toThrow(RangeError);
    expect(() => computeFee(r(100), 1.5)).toThrow(RangeError);
  });
});

