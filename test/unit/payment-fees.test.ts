import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorizationDebit, captureAmounts } from '../../shared/wallet/payments/fees';
import { referenceFee } from '../support/fees';

/** A capture's fee, commission and legs for every pair of rules and both commission modes. */

describe('capture amounts', () => {
  const ruleArb = fc.record({ bps: fc.integer({ min: 0, max: 10_000 }), flat: fc.integer({ min: 0, max: 1_000 }), min_fee: fc.integer({ min: 0, max: 500 }), max_fee: fc.option(fc.integer({ min: 500, max: 10 ** 9 }), { nil: null }) });

  it('capture amounts match a BigInt reference and always balance (property)', () => {
    fc.assert(
      fc.property(ruleArb, ruleArb, fc.constantFrom('deduct' as const, 'add' as const), fc.integer({ min: 1, max: 2 ** 45 }), fc.integer({ min: 1, max: 2 ** 45 }), (payment, commission, mode, a, b) => {
        const [part, whole] = a <= b ? [a, b] : [b, a];
        const got = captureAmounts({ payment, commission }, mode, part);
        const fee = referenceFee(payment, BigInt(part));
        const com = referenceFee(commission, BigInt(part));
        expect(BigInt(got.fee)).toBe(fee);
        expect(BigInt(got.commission)).toBe(com);
        expect(BigInt(got.payer_debit)).toBe(BigInt(part) + (mode === 'add' ? com : 0n));
        expect(BigInt(got.merchant_credit)).toBe(BigInt(part) - fee - (mode === 'deduct' ? com : 0n));
        expect(got.payer_debit).toBe(got.merchant_credit + got.revenue_credit);
        // A partial capture never debits more than the authorization reserved.
        expect(got.payer_debit).toBeLessThanOrEqual(authorizationDebit({ commission }, mode, whole));
      }),
      { numRuns: 500 },
    );
  });
});
