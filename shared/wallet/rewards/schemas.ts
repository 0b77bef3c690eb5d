import * as z from 'zod';
import { cursor, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of rewards (spec part 2 reward rule; docs/rewards.md). */

const positive = z.number().int().min(1).max(2 ** 45);
const nonNegative = z.number().int().min(0).max(2 ** 45);

export const settingsPut = z
  .object({
    /** The ledger commodity of the tenant's loyalty points (not its currency). */
    points_commodity: z.string().regex(/^[A-Z][A-Z0-9]{1,11}$/, 'upper-case letters and digits, 2 to 12'),
    /** `points` points convert to `cash` minor units: two positive integers, never a float. */
    conversion_rate: z.object({ points: positive, cash: positive }).strict(),
  })
  .strict();

export const settings = settingsPut.extend({ updated_at: timestamp }).meta({ id: 'RewardSettings' });

export const cashbackParams = z
  .object({ bps: z.number().int().min(0).max(10_000), flat: nonNegative.default(0) })
  .strict()
  .refine((p) => p.bps > 0 || p.flat > 0, { message: 'bps or flat must be positive' })
  .meta({ anyOf: [{ properties: { bps: { minimum: 1 } } }, { required: ['flat'], properties: { flat: { minimum: 1 } } }] });
export const accrualParams = z.object({ points: positive, per_amount: positive }).strict();

const ruleFields = {
  offering_id: uuid.optional(),
  /** Which captures earn: at least `min_amount` minor units. */
  scope: z.object({ min_amount: nonNegative.optional() }).strict().default({}),
  /** Cashback only, in minor units. */
  caps: z.object({ per_payment: positive.optional(), per_user_per_day: positive.optional() }).strict().default({}),
  starts_at: timestamp.optional(),
  ends_at: timestamp.optional(),
};

/** Each kind takes its own params: the documents say so as a `oneOf` on `kind`. */
export const ruleCreate = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('cashback'), params: cashbackParams, ...ruleFields }).strict(),
  z.object({ kind: z.literal('accrual'), params: accrualParams, ...ruleFields }).strict(),
]);

export const rule = z
  .object({
    id: uuid,
    client_id: uuid,
    offering_id: uuid.nullable(),
    kind: z.enum(['cashback', 'accrual']),
    params: z.record(z.string(), z.number()),
    scope: z.object({ min_amount: z.number().int().optional() }),
    caps: z.object({ per_payment: z.number().int().optional(), per_user_per_day: z.number().int().optional() }),
    starts_at: timestamp.nullable(),
    ends_at: timestamp.nullable(),
    /** The slot's count: a new rule in a slot freed by a disabled one gets the next. */
    version: z.number().int(),
    status: z.enum(['active', 'disabled']),
    created_at: timestamp,
    disabled_at: timestamp.nullable(),
  })
  .meta({ id: 'RewardRule' });

export const ruleListQuery = z.object({ ...createdRange, cursor, limit: pageLimit() }).strict();

export const historyEntry = z.object({
  id: uuid,
  kind: z.enum(['cashback', 'points', 'cashback_clawback', 'points_clawback', 'conversion']),
  /** Minor units of the currency (cashback) or points; negative when taken back or converted away. */
  amount: z.number().int(),
  cash: z.number().int().optional(),
  payment_id: uuid.nullable(),
  rule_id: uuid.nullable(),
  ledger_transaction_id: uuid,
  created_at: timestamp,
});

export const rewards = z
  .object({
    user_id: uuid,
    points_commodity: z.string().nullable(),
    points_balance: z.number().int(),
    cashback_earned: z.number().int(),
    points_earned: z.number().int(),
    history: z.array(historyEntry),
  })
  .meta({ id: 'UserRewards' });

export const convertBody = z.object({ points: positive }).strict();
export const conversion = z
  .object({
    id: uuid,
    user_id: uuid,
    points: z.number().int(),
    cash: z.number().int(),
    rate: z.object({ points: z.number().int(), cash: z.number().int() }),
    points_commodity: z.string(),
    currency: z.string(),
    ledger_transaction_id: uuid,
    created_at: timestamp,
  })
  .meta({ id: 'PointsConversion' });

export const marketingFundsBody = z.object({ amount: positive }).strict();
export const marketingFunds = z
  .object({ merchant_id: uuid, amount: z.number().int(), marketing_account_id: uuid, ledger_transaction_id: uuid, created_at: timestamp })
  .meta({ id: 'MarketingFunding' });
