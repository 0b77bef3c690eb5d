import * as z from '../../kernel/zod';
import { someField } from '../../http/schemas';
import { COMMISSION_MODES, FEE_PATHS, MAX_BPS, type FeePath, type FeePlan } from './fees';

/**
 * A change of the fee plan as a request sends it, and applying it: apart from ./fees.ts, which
 * every money path imports for the arithmetic, so a function that only computes a fee does not
 * build these schemas at its import.
 */

const feeAmount = z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER));

/** A rule as sent: bps, flat and min_fee required; max_fee omitted (or null) means no cap. */
export const feeRuleInput = z
  .strictObject({ bps: z.int().check(z.minimum(0), z.maximum(MAX_BPS)), flat: feeAmount, min_fee: feeAmount, max_fee: z.optional(z.nullable(feeAmount)) })
  .check(
    z.refine((rule) => rule.max_fee === undefined || rule.max_fee === null || rule.min_fee <= rule.max_fee, {
      message: 'min_fee must not exceed max_fee',
      path: ['min_fee'],
    }),
  );

export type FeeRuleInput = z.infer<typeof feeRuleInput>;

/** A change: any of the six paths (each replaced whole) and optionally the commission mode. */
export const feePlanChange = someField(
  z.strictObject({
    ...(Object.fromEntries(FEE_PATHS.map((path) => [path, z.optional(feeRuleInput)])) as Record<FeePath, z.ZodMiniOptional<typeof feeRuleInput>>),
    commission_mode: z.optional(z.enum(COMMISSION_MODES)),
  }),
  `name at least one of ${FEE_PATHS.join(', ')} or commission_mode`,
);

export type FeePlanChange = z.infer<typeof feePlanChange>;

/** The plan after a change: named paths replaced whole, the others kept; an omitted max_fee clears the cap. */
export function applyFeePlanChange(plan: FeePlan, change: FeePlanChange): FeePlan {
  const fees = { ...plan.fees };
  for (const path of FEE_PATHS) {
    const rule = change[path];
    if (rule) fees[path] = { bps: rule.bps, flat: rule.flat, min_fee: rule.min_fee, max_fee: rule.max_fee ?? null };
  }
  return { fees, commission_mode: change.commission_mode ?? plan.commission_mode };
}
