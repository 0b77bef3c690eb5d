import type * as z from '../../kernel/zod';
import { getItem, queryPage } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { codec, int, nullable, oneOf, opt, orElse, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { MAX_LEG_AMOUNT, type Transaction } from '../../ledger-client/contract';
import type { WalletDeps } from '../deps';
import { merchantRecord } from '../merchants/merchants';
import { defineOperation } from '../saga/registry';
import { runOperation } from '../saga/engine';
import { auditItem } from '../tenancy/audit';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { rewardAccount } from './accounts';
import { historyItem } from './earn';
import { rewardKeys } from './keys';
import { getSettings } from './settings';
import type { conversion, historyEntry, rewards } from './schemas';
import { moveLegs } from '../money/legs';

/**
 * A user's rewards (points balance, cashback earned, history), converting points to cash, and a
 * merchant funding its marketing account (docs/rewards.md).
 */

type Conversion = z.infer<typeof conversion>;
type HistoryEntry = z.infer<typeof historyEntry>;

/** A user's totals (./keys.ts `user`): made by the first grant's ADD, so a user who earned nothing has none. */
const toTotals = codec<{ cashback_earned: number; points_earned: number }>('user_rewards', { cashback_earned: orElse(int, () => 0), points_earned: orElse(int, () => 0) });

/** A history entry's codec (kinds spelt here, so the route does not need the API's schemas to read one). */
const toHistoryEntry = codec<HistoryEntry>('reward_entry', {
  id: str,
  kind: oneOf('cashback', 'points', 'cashback_clawback', 'points_clawback', 'conversion'),
  amount: int,
  cash: opt(int),
  payment_id: nullable(str),
  rule_id: nullable(str),
  ledger_transaction_id: str,
  created_at: str,
});

/** The user's rewards: the points account's balance (from the ledger), totals and the newest history. Refuses: user_not_found. */
export async function userRewards(runtime: WalletDeps, tenantId: string, userId: string): Promise<z.infer<typeof rewards>> {
  await getUserRecord(runtime, tenantId, userId);
  const [settings, totals, tenant] = await Promise.all([getSettings(runtime, tenantId), getItem(runtime, rewardKeys.user(userId)), getTenantRecord(runtime, tenantId)]);
  let points = 0;
  if (settings) {
    const account = await rewardAccount(runtime, tenant.ledger_id, tenantId, { type: 'user', id: userId }, 'points', settings.points_commodity);
    points = (await runtime.ledger().getAccount(tenant.ledger_id, account)).balance.posted;
  }
  const history = await queryPage(runtime, { index: 'gsi1', partition: rewardKeys.history(userId), cursor: undefined, limit: 50 });
  return {
    user_id: userId,
    points_commodity: settings?.points_commodity ?? null,
    points_balance: points,
    ...toTotals(totals ?? {}),
    history: history.items.map(toHistoryEntry),
  };
}

interface ConversionPin {
  ledger_id: string;
  currency: string;
  points_commodity: string;
  rate: { points: number; cash: number };
  user_points: string;
  user_cash: string;
  issuance: string;
  funding: string;
}

/**
 * Points to cash in ONE ledger posting of two balanced pairs (an exchange group): the user's points
 * back to issuance, and cash from the tenant's rewards funding account (no floor: the tenant's
 * liability) to the user's cash, at the tenant's rate snapshotted in the metadata and the event.
 */
export const POINTS_CONVERT = defineOperation('points.convert', async ({ runtime, tenantId, operationId, request, pinned, startedAt }) => {
  const { user_id: userId, points } = request as { user_id: string; points: number };
  const pin = pinned as ConversionPin;
  const cash = Number((BigInt(points) * BigInt(pin.rate.cash)) / BigInt(pin.rate.points));
  return {
    post: async (ledgerKey) => {
      if (cash < 1) throw new AppError('invalid_request', `${points} points are worth less than one minor unit at ${pin.rate.points} points for ${pin.rate.cash}.`, { errors: [{ field: 'points', message: 'too few' }] });
      if (cash > MAX_LEG_AMOUNT) {
        throw new AppError('invalid_request', `${points} points are worth ${cash}, more than one conversion can move (${MAX_LEG_AMOUNT}).`, { errors: [{ field: 'points', message: 'too many for one conversion' }] });
      }
      return runtime.ledger().post(
        pin.ledger_id,
        {
          type: 'points_conversion',
          reference_id: operationId,
          metadata: { user_id: userId, rate_points: String(pin.rate.points), rate_cash: String(pin.rate.cash), points_commodity: pin.points_commodity },
          legs: [...moveLegs(pin.points_commodity, pin.user_points, pin.issuance, points), ...moveLegs(pin.currency, pin.funding, pin.user_cash, cash)],
        },
        ledgerKey,
      );
    },
    commit: async (posted) => {
      const converted: Conversion = { id: operationId, user_id: userId, points, cash, rate: pin.rate, points_commodity: pin.points_commodity, currency: pin.currency, ledger_transaction_id: (posted as Transaction).id, created_at: startedAt };
      return {
        items: [
          historyItem(runtime, tenantId, userId, { kind: 'conversion', amount: -points, cash, payment_id: null, rule_id: null, ledger_transaction_id: converted.ledger_transaction_id }),
          outboxItem(runtime, { type: 'points.converted', tenantId, data: { conversion: converted } }).item,
        ],
        status: 201,
        body: converted,
      };
    },
  };
});

/** Converts points once per Idempotency-Key. Refuses: user_not_found, invalid_request (no settings, too few points), insufficient_funds (not that many points). */
export async function convertPoints(runtime: WalletDeps, principal: Principal, tenantId: string, userId: string, points: number, options: { idempotencyKey: string; requestId: string }): Promise<Outcome> {
  const [user, settings, tenant] = await Promise.all([getUserRecord(runtime, tenantId, userId), getSettings(runtime, tenantId), getTenantRecord(runtime, tenantId)]);
  if (!settings) throw new AppError('invalid_request', 'The tenant has no points commodity and rate yet (PUT /v1/rewards/settings).');
  const account = (owner: { type: 'tenant' | 'user'; id: string }, purpose: 'points' | 'points_issuance' | 'rewards_funding', commodity: string) =>
    rewardAccount(runtime, tenant.ledger_id, tenantId, owner, purpose, commodity);
  const [userPoints, issuance, funding] = await Promise.all([
    account({ type: 'user', id: userId }, 'points', settings.points_commodity),
    account({ type: 'tenant', id: tenantId }, 'points_issuance', settings.points_commodity),
    account({ type: 'tenant', id: tenantId }, 'rewards_funding', tenant.currency),
  ]);
  const pin: ConversionPin = { ledger_id: tenant.ledger_id, currency: tenant.currency, points_commodity: settings.points_commodity, rate: settings.conversion_rate, user_points: userPoints, user_cash: user.cash_account_id, issuance, funding };
  return runOperation(runtime, { operation: POINTS_CONVERT, tenantId, idempotencyKey: options.idempotencyKey, request: { user_id: userId, points }, pinned: pin, principal, requestId: options.requestId });
}

interface FundingPin {
  ledger_id: string;
  currency: string;
  settlement: string;
  marketing: string;
}

/** A merchant moves settled proceeds into its marketing account, which pays its cashback. */
export const MARKETING_FUND = defineOperation('marketing.fund', async ({ runtime, tenantId, operationId, request, pinned, principal, requestId, startedAt }) => {
  const { merchant_id: merchantId, amount } = request as { merchant_id: string; amount: number };
  const pin = pinned as FundingPin;
  return {
    post: (ledgerKey) =>
      runtime.ledger().post(
        pin.ledger_id,
        {
          type: 'marketing_funding',
          reference_id: operationId,
          metadata: { merchant_id: merchantId },
          legs: moveLegs(pin.currency, pin.settlement, pin.marketing, amount),
        },
        ledgerKey,
      ),
    commit: async (posted) => {
      const body = { merchant_id: merchantId, amount, marketing_account_id: pin.marketing, ledger_transaction_id: (posted as Transaction).id, created_at: startedAt };
      return {
        items: [auditItem(runtime, { tenantId, actor: principal, action: 'marketing_funds.add', target: { type: 'merchant', id: merchantId }, after: body, requestId })],
        status: 201,
        body,
      };
    },
  };
});

/** Funds a merchant's marketing account from its settlement, once per Idempotency-Key. Refuses: not_found, insufficient_funds (settlement short). */
export async function fundMarketing(runtime: WalletDeps, principal: Principal, tenantId: string, merchantId: string, amount: number, options: { idempotencyKey: string; requestId: string }): Promise<Outcome> {
  const [tenant, merchant] = await Promise.all([getTenantRecord(runtime, tenantId), merchantRecord(runtime, tenantId, merchantId)]);
  const marketing = await rewardAccount(runtime, tenant.ledger_id, tenantId, { type: 'merchant', id: merchantId }, 'marketing', tenant.currency);
  const pin: FundingPin = { ledger_id: tenant.ledger_id, currency: tenant.currency, settlement: merchant.settlement_account_id, marketing };
  return runOperation(runtime, { operation: MARKETING_FUND, tenantId, idempotencyKey: options.idempotencyKey, request: { merchant_id: merchantId, amount }, pinned: pin, principal, requestId: options.requestId });
}
