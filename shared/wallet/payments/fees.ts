import { computeFee, type CommissionMode, type FeeRule } from '../tenancy/fees';

/**
 * The money of a payment capture (pure, integer minor units). The payment fee (tenant `payment`
 * rule) always comes out of the merchant's proceeds. The marketplace commission (`commission`
 * rule): `deduct` takes it from the merchant's proceeds too; `add` charges it to the payer on top.
 *   payer_debit     = amount (+ commission when `add`)
 *   merchant_credit = amount - fee (- commission when `deduct`)
 *   revenue_credit  = fee + commission
 * so payer_debit = merchant_credit + revenue_credit always.
 */
/** Largest payer debit in one ledger leg (the ledger's MAX_LEG_AMOUNT, 2^45 minor units). */
export const MAX_PAYMENT_DEBIT = 2 ** 45;

export interface CaptureAmounts {
  fee: number;
  commission: number;
  payer_debit: number;
  merchant_credit: number;
  revenue_credit: number;
}

export function captureAmounts(rules: { payment: FeeRule; commission: FeeRule }, mode: CommissionMode, amount: number): CaptureAmounts {
  return splitCharge(amount, computeFee(rules.payment, amount), computeFee(rules.commission, amount), mode);
}

/** How a charge of `amount` splits between payer, merchant and platform, given its fee and commission. */
export function splitCharge(amount: number, fee: number, commission: number, mode: CommissionMode): CaptureAmounts {
  const payer_debit = mode === 'add' ? amount + commission : amount;
  const merchant_credit = mode === 'add' ? amount - fee : amount - fee - commission;
  return { fee, commission, payer_debit, merchant_credit, revenue_credit: fee + commission };
}

/**
 * What an authorization reserves on the payer's cash account: the amount, plus with `add` the
 * commission on the whole amount. computeFee is non-decreasing in the amount, so every capture of
 * at most `amount` debits at most this (the ledger caps a pending's posting by its reservation).
 */
export function authorizationDebit(rules: { commission: FeeRule }, mode: CommissionMode, amount: number): number {
  return mode === 'add' ? amount + computeFee(rules.commission, amount) : amount;
}
