/**
 * Fee plans (spec part 2 "Tenant", part 4 item 13): six money paths, each with a rule of four
 * integers in minor units of the tenant's currency. Pure: no I/O, so the wallet's money paths can
 * import `computeFee` without the tenancy services.
 */

export const FEE_PATHS = ['payment', 'subscription', 'commission', 'p2p', 'topup', 'payout'] as const;
export type FeePath = (typeof FEE_PATHS)[number];

/**
 * How a marketplace commission is charged: `deduct` takes it out of what the merchant receives
 * (the payer pays the list price), `add` charges it to the payer on top of the price.
 */
export const COMMISSION_MODES = ['deduct', 'add'] as const;
export type CommissionMode = (typeof COMMISSION_MODES)[number];

export interface FeeRule {
  /** Basis points of the amount: 100 bps = 1 %. */
  bps: number;
  /** Added to the bps part. */
  flat: number;
  min_fee: number;
  /** null: no cap. */
  max_fee: number | null;
}

export type Fees = Record<FeePath, FeeRule>;

export interface FeePlan {
  fees: Fees;
  commission_mode: CommissionMode;
}

export const MAX_BPS = 10_000;

export const ZERO_RULE: FeeRule = Object.freeze({ bps: 0, flat: 0, min_fee: 0, max_fee: null });

/** A new tenant charges nothing until its fee plan is set. */
export function defaultFeePlan(): FeePlan {
  return { fees: Object.fromEntries(FEE_PATHS.map((path) => [path, { ...ZERO_RULE }])) as Fees, commission_mode: 'deduct' };
}

export const feePlanOf = (tenant: FeePlan): FeePlan => ({ fees: tenant.fees, commission_mode: tenant.commission_mode });

/** A rule as the API shows it: `max_fee` is absent when there is no cap (spec part 2, Tenant). */
export type PublicFeeRule = Omit<FeeRule, 'max_fee'> & { max_fee?: number };
export type PublicFees = Record<FeePath, PublicFeeRule>;
export interface PublicFeePlan {
  fees: PublicFees;
  commission_mode: CommissionMode;
}

export const publicRule = ({ max_fee, ...rule }: FeeRule): PublicFeeRule => (max_fee === null ? rule : { ...rule, max_fee });
export const publicFees = (fees: Fees): PublicFees => Object.fromEntries(Object.entries(fees).map(([path, rule]) => [path, publicRule(rule)])) as PublicFees;
export const publicFeePlan = (plan: FeePlan): PublicFeePlan => ({ fees: publicFees(plan.fees), commission_mode: plan.commission_mode });

/**
 * The fee on an amount (both integer minor units): `flat + round(amount × bps / 10 000)`, the bps
 * part rounded half up (0.5 minor units becomes 1), then clamped to [min_fee, max_fee]. Exact for
 * every safe amount: the product is split so no intermediate passes 2^53. A fee may exceed the
 * amount (a flat fee on a tiny amount); whether that is acceptable is the money path's decision.
 */
/** A marketplace commission of `bps` basis points on an amount, rounded as fees are. */
export const commissionOf = (bps: number, amount: number): number => computeFee({ ...ZERO_RULE, bps }, amount);

export function computeFee(rule: FeeRule, amount: number): number {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`amount must be a non-negative safe integer, got ${amount}`);
  // amount = whole × 10 000 + rest; whole × bps <= amount and rest × bps < 10^8 stay exact.
  const rest = amount % 10_000;
  const whole = (amount - rest) / 10_000;
  const bpsPart = whole * rule.bps + Math.floor((rest * rule.bps + 5_000) / 10_000);
  const raw = rule.flat + bpsPart;
  if (!Number.isSafeInteger(raw)) {
    // Past 2^53 the sum is inexact but still above every safe cap.
    if (rule.max_fee !== null) return rule.max_fee;
    throw new RangeError('fee exceeds the safe integer range and the rule has no cap');
  }
  const floored = Math.max(rule.min_fee, raw);
  return rule.max_fee === null ? floored : Math.min(floored, rule.max_fee);
}
