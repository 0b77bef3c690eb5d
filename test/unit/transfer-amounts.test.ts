import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_BPS, type FeeRule } from '../../shared/wallet/tenancy/fees';
import { transferAmounts, transferLegs } from '../../shared/wallet/transfers/transfers';
import { referenceFee } from '../support/fees';

/** A transfer's amounts and legs for every fee rule: pure, checked against the fee by the book. */

const feeRule = fc
  .record({
    bps: fc.integer({ min: 0, max: MAX_BPS }),
    flat: fc.integer({ min: 0, max: 10_000 }),
    min_fee: fc.integer({ min: 0, max: 10_000 }),
    cap: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null }),
  })
  .map(({ bps, flat, min_fee, cap }): FeeRule => ({ bps, flat, min_fee, max_fee: cap === null ? null : Math.max(cap, min_fee) }));

describe('transfer amounts', () => {
  const accounts = { currency: 'USD', from_account_id: 'from', to_account_id: 'to', revenue_account_id: 'revenue' };

  it('debits the sender amount + fee, credits the receiver the amount and revenue the fee, balanced, for every rule with and without a cap', () => {
    fc.assert(
      fc.property(feeRule, fc.integer({ min: 1, max: 2 ** 40 }), (rule, amount) => {
        const fee = Number(referenceFee(rule, amount));
        const amounts = transferAmounts(rule, amount);
        expect(amounts).toEqual({ fee, sender_debit: amount + fee, receiver_credit: amount, revenue_credit: fee });
        const legs = transferLegs(accounts, amounts);
        expect(legs[0]).toEqual({ account_id: 'from', direction: 'debit', amount: amount + fee, commodity: 'USD' });
        expect(legs[1]).toEqual({ account_id: 'to', direction: 'credit', amount, commodity: 'USD' });
        expect(legs.slice(2)).toEqual(fee > 0 ? [{ account_id: 'revenue', direction: 'credit', amount: fee, commodity: 'USD' }] : []);
        const net = legs.reduce((sum, leg) => sum + (leg.direction === 'credit' ? leg.amount : -leg.amount), 0);
        expect(net).toBe(0);
        if (rule.max_fee !== null) expect(fee).toBeLessThanOrEqual(rule.max_fee);
        expect(fee).toBeGreaterThanOrEqual(rule.min_fee);
      }),
      { numRuns: 3_000 },
    );
  });
});
