import * as z from '../../kernel/zod';
import { cursor, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of rewards (spec part 2 reward rule; docs/rewards.md). */

const positive = z.int().check(z.minimum(1), z.maximum(2 ** 45));
const nonNegative = z.int().check(z.minimum(0), z.maximum(2 ** 45));

export const settingsPut = z.strictObject({
  /** The ledger commodity of the tenant's loyalty points (not its currency). */
  points_commodity: z.string().check(z.regex(/^[A-Z][A-Z0-9]{1,11}$/, 'upper-case letters and digits, 2 to 12')),
  /** `points` points convert to `cash` minor units: two positive integers, never a float. */
  conversion_rate: z.strictObject({ points: positive, cash: positive }),
});

export const settings = z.extend(settingsPut, { updated_at: timestamp }).check(z.meta({ id: 'RewardSettings' }));

export const cashbackParams = z
  .strictObject({ bps: z.int().check(z.minimum(0), z.maximum(10_000)), flat: z._default(nonNegative, 0) })
  .check(
    z.refine((p) => p.bps > 0 || p.flat > 0, { message: 'bps or flat must be positive' }),
    z.meta({ anyOf: [{ properties: { bps: { minimum: 1 } } }, { required: ['flat'], properties: { flat: { minimum: 1 } } }] }),
  );
export const accrualParams = z.strictObject({ points: positive, per_amount: positive });

const ruleFields = {
  offering_id: z.optional(uuid),
  /** Which captures earn: at least `min_amount` minor units. */
  scope: z._default(z.strictObject({ min_amount: z.optional(nonNegative) }), {}),
  /** Cashback only, in minor units. */
  caps: z._default(z.strictObject({ per_payment: z.optional(positive), per_user_per_day: z.optional(positive) }), {}),
  starts_at: z.optional(timestamp),
  ends_at: z.optional(timestamp),
};

/** Each kind takes its own params: the documents say so as a `oneOf` on `kind`. */
export const ruleCreate = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('cashback'), params: cashbackParams, ...ruleFields }),
  z.strictObject({ kind: z.literal('accrual'), params: accrualParams, ...ruleFields }),
]);

export const rule = z
  .object({
    id: uuid,
    client_id: uuid,
    offering_id: z.nullable(uuid),
    kind: z.enum(['cashback', 'accrual']),
    params: z.record(z.string(), z.number()),
    scope: z.object({ min_amount: z.optional(z.int()) }),
    caps: z.object({ per_payment: z.optional(z.int()), per_user_per_day: z.optional(z.int()) }),
    starts_at: z.nullable(timestamp),
    ends_at: z.nullable(timestamp),
    /** The slot's count: a new rule in a slot freed by a disabled one gets the next. */
    version: z.int(),
    status: z.enum(['active', 'disabled']),
    created_at: timestamp,
    disabled_at: z.nullable(timestamp),
  })
  .check(z.meta({ id: 'RewardRule' }));

export const ruleListQuery = z.strictObject({ ...createdRange, cursor, limit: pageLimit() });

export const historyEntry = z.object({
  id: uuid,
  kind: z.enum(['cashback', 'points', 'cashback_clawback', 'points_clawback', 'conversion']),
  /** Minor units of the currency (cashback) or points; negative when taken back or converted away. */
  amount: z.int(),
  cash: z.optional(z.int()),
  payment_id: z.nullable(uuid),
  rule_id: z.nullable(uuid),
  ledger_transaction_id: uuid,
  created_at: timestamp,
});

export const rewards = z
  .object({
    user_id: uuid,
    points_commodity: z.nullable(z.string()),
    points_balance: z.int(),
    cashback_earned: z.int(),
    points_earned: z.int(),
    history: z.array(historyEntry),
  })
  .check(z.meta({ id: 'UserRewards' }));

export const convertBody = z.strictObject({ points: positive });
export const conversion = z
  .object({
    id: uuid,
    user_id: uuid,
    points: z.int(),
    cash: z.int(),
    rate: z.object({ points: z.int(), cash: z.int() }),
    points_commodity: z.string(),
    currency: z.string(),
    ledger_transaction_id: uuid,
    created_at: timestamp,
  })
  .check(z.meta({ id: 'PointsConversion' }));

export const marketingFundsBody = z.strictObject({ amount: positive });
export const marketingFunds = z
  .object({ merchant_id: uuid, amount: z.int(), marketing_account_id: uuid, ledger_transaction_id: uuid, created_at: timestamp })
  .check(z.meta({ id: 'MarketingFunding' }));
