import { describe, expect, it } from 'vitest';
import { scaledDecimal } from '../../shared/kernel/decimal';
import { percentOf } from '../../shared/wallet/catalog/records';

describe('scaledDecimal', () => {
  it('reads a decimal of at most its places as an exact integer, without float arithmetic', () => {
    expect(scaledDecimal(12.5, 2)).toBe(1250n);
    expect(scaledDecimal(33.33, 2)).toBe(3333n);
    expect(scaledDecimal(0.07, 2)).toBe(7n);
    expect(scaledDecimal(1000, 2)).toBe(100000n);
    expect(scaledDecimal(-1.5, 2)).toBe(-150n);
  });

  it('refuses more places than allowed and exponent forms', () => {
    expect(scaledDecimal(12.345, 2)).toBeUndefined();
    expect(scaledDecimal(1e-7, 2)).toBeUndefined();
    expect(scaledDecimal(Number.NaN, 2)).toBeUndefined();
  });

  it('prices a percent markup from its basis points, half up, where float multiplication would drift', () => {
    // 1.1 * 100 is 110.00000000000001 in binary floating point; the basis points are 110 exactly.
    expect(percentOf(1_000, 1.1)).toBe(11);
    expect(percentOf(2 ** 45, 33.33)).toBe(Number((2n ** 45n * 3333n + 5_000n) / 10_000n));
    expect(percentOf(15, 10)).toBe(2); // 1.5 rounds half up
  });
});
