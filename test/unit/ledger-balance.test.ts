import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError, problemBody } from '../../shared/kernel/errors';
import { assertBalanced as ledgerAssertBalanced } from '../../shared/ledger/refusals';
import { assertBalanced, PostingInvariantError } from '../../shared/ledger-client/balance';
import type { LegRequest } from '../../shared/ledger-client/contract';
import { asRefusal } from '../../shared/wallet/saga/refusals';

/**
 * The wallet's balance check before a posting is sent (shared/ledger-client/balance.ts) holds the
 * ledger's own rule: it refuses exactly the postings of positive integer amounts the ledger refuses
 * as `unbalanced`, and as the wallet's bug (500), never the caller's (4xx).
 */

const account = fc.constantFrom('a', 'b', 'c', 'd');
const commodity = fc.constantFrom('USD', 'EUR', 'POINTS');
const direction = fc.constantFrom('debit' as const, 'credit' as const);
const amount = fc.integer({ min: 1, max: 2 ** 45 });
const anyLeg: fc.Arbitrary<LegRequest> = fc.record({ account_id: account, direction, amount, commodity });

/** A balanced posting by construction: each move's debit is credited whole or in two parts, in its commodity. */
const balancedLegs: fc.Arbitrary<LegRequest[]> = fc
  .array(fc.record({ commodity, amount: fc.integer({ min: 2, max: 2 ** 45 }), split: fc.double({ min: 0, max: 1, noNaN: true }), from: account, to: account }), { minLength: 1, maxLength: 10 })
  .map((moves) =>
    moves.flatMap(({ commodity, amount, split, from, to }): LegRequest[] => {
      const part = Math.floor(amount * split);
      const credits = part >= 1 && part < amount ? [part, amount - part] : [amount];
      return [{ account_id: from, direction: 'debit', amount, commodity }, ...credits.map((credit): LegRequest => ({ account_id: to, direction: 'credit', amount: credit, commodity }))];
    }),
  )
  // Every leg, in any order.
  .chain((legs) => fc.shuffledSubarray(legs, { minLength: legs.length }));

const refusedByWallet = (legs: LegRequest[]) => {
  try {
    assertBalanced('transfer', legs);
    return false;
  } catch (error) {
    expect(error).toBeInstanceOf(PostingInvariantError);
    return true;
  }
};
const refusedByLedger = (legs: LegRequest[]) => {
  try {
    ledgerAssertBalanced(legs);
    return false;
  } catch (error) {
    expect(error).toMatchObject({ code: 'unbalanced' });
    return true;
  }
};

describe("the wallet's balance check", () => {
  it("refuses exactly what the ledger refuses as unbalanced, for any legs of positive integer amounts (property)", () => {
    fc.assert(
      fc.property(fc.array(anyLeg, { minLength: 0, maxLength: 32 }), (legs) => {
        expect(refusedByWallet(legs)).toBe(refusedByLedger(legs));
      }),
      { numRuns: 2_000 },
    );
  });

  it('passes every balanced posting, in any order and across commodities, and refuses it once one amount moves (property)', () => {
    fc.assert(
      fc.property(balancedLegs, fc.nat(), fc.integer({ min: 1, max: 1_000 }), (legs, which, by) => {
        expect(refusedByWallet(legs)).toBe(false);
        expect(refusedByLedger(legs)).toBe(false);
        const index = which % legs.length;
        const off = legs.map((leg, i) => (i === index ? { ...leg, amount: leg.amount + by } : leg));
        expect(refusedByWallet(off)).toBe(true);
        expect(refusedByLedger(off)).toBe(true);
      }),
    );
  });

  it('refuses per commodity: a debit in one commodity is not balanced by a credit in another', () => {
    const legs: LegRequest[] = [
      { account_id: 'a', direction: 'debit', amount: 100, commodity: 'USD' },
      { account_id: 'b', direction: 'credit', amount: 100, commodity: 'POINTS' },
    ];
    expect(() => assertBalanced('exchange', legs)).toThrow('The wallet built an unbalanced exchange posting: USD credits fall short of debits by 100, POINTS credits exceed debits by 100.');
  });

  it('refuses an amount that is not a positive integer of minor units, even when the legs net to zero', () => {
    for (const bad of [0, -5, 2.5, Number.NaN]) {
      const legs: LegRequest[] = [
        { account_id: 'a', direction: 'debit', amount: bad, commodity: 'USD' },
        { account_id: 'b', direction: 'credit', amount: bad, commodity: 'USD' },
      ];
      expect(() => assertBalanced('transfer', legs), String(bad)).toThrow(PostingInvariantError);
    }
  });

  it('checks nothing when the posting has no legs of its own (posting a pending: the reservation was checked)', () => {
    expect(() => assertBalanced('payment', undefined)).not.toThrow();
  });

  it("is the wallet's bug: a 500 internal_error that says nothing of it, and a saga's transient failure, not a refusal", () => {
    let error: unknown;
    try {
      assertBalanced('transfer', [{ account_id: 'a', direction: 'debit', amount: 5, commodity: 'USD' }]);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(PostingInvariantError);
    expect(error).not.toBeInstanceOf(AppError);
    expect(problemBody(error, 'request-1')).toMatchObject({ status: 500, code: 'internal_error', detail: 'An internal error occurred.' });
    expect(asRefusal(error)).toBeUndefined();
  });
});
