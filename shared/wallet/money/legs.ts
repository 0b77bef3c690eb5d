/**
 * The ledger legs the wallet's money moves are built of (integer minor units, one commodity per
 * leg). Below every domain that moves money: payments, orders, subscriptions, rewards and payouts
 * build their postings from these, and none of them imports another for it.
 */

export interface Leg {
  account_id: string;
  direction: 'debit' | 'credit';
  amount: number;
  commodity: string;
}

/** A leg builder for one commodity. */
export const legOf = (commodity: string) => (account_id: string, direction: 'debit' | 'credit', amount: number): Leg => ({ account_id, direction, amount, commodity });

/** The two legs that move `amount` of `commodity` from one account to another. */
export const moveLegs = (commodity: string, from: string, to: string, amount: number): Leg[] => [legOf(commodity)(from, 'debit', amount), legOf(commodity)(to, 'credit', amount)];

/** How a charge splits: what the payer is debited, the merchant and the platform's revenue credited (payer_debit = merchant_credit + revenue_credit). */
export interface ChargeSplit {
  payer_debit: number;
  merchant_credit: number;
  revenue_credit: number;
}

/** Capture legs: payer debit, merchant and revenue credits (zero legs left out). */
export function captureLegs(quote: { currency: string; payer_account_id: string; settlement_account_id: string; revenue_account_id: string }, amounts: ChargeSplit): Leg[] {
  const leg = legOf(quote.currency);
  return [
    leg(quote.payer_account_id, 'debit', amounts.payer_debit),
    ...(amounts.merchant_credit > 0 ? [leg(quote.settlement_account_id, 'credit', amounts.merchant_credit)] : []),
    ...(amounts.revenue_credit > 0 ? [leg(quote.revenue_account_id, 'credit', amounts.revenue_credit)] : []),
  ];
}
