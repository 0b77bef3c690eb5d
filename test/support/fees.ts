import type { FeeRule } from '../../shared/wallet/tenancy/fees';

/** The fee by the book, in BigInt: flat + bps part rounded half up, clamped to [min_fee, max_fee]. */
export function referenceFee(rule: FeeRule, amount: number | bigint): bigint {
  let fee = BigInt(rule.flat) + (BigInt(amount) * BigInt(rule.bps) + 5_000n) / 10_000n;
  if (fee < BigInt(rule.min_fee)) fee = BigInt(rule.min_fee);
  if (rule.max_fee !== null && fee > BigInt(rule.max_fee)) fee = BigInt(rule.max_fee);
  return fee;
}
