import type { TransactItem } from '../../aws/dynamodb';
import { getItem } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import type { Transaction } from '../../ledger-client/contract';
import { LedgerRefusal } from '../../ledger-client/client';
import type { WalletDeps } from '../deps';
import { catalogKeys } from '../catalog/keys';
import { toMerchantClient } from '../catalog/records';
import { rewardAccount } from './accounts';
import { rewardKeys } from './keys';
import type { Grants, PlannedRule } from './records';
import { liveRules, type RewardRule } from './rules';
import { getSettings } from './settings';
import { moveLegs } from '../money/legs';

/**
 * Earning rewards in the capture of a payment (docs/rewards.md), in two halves: planRewards reads
 * the live rules before the payment's saga starts, and its plan is pinned with the key;
 * postRewards posts that plan inside the saga, after the payment's own posting and under keys
 * derived from it (so a resume replays the same postings, never pays twice or otherwise):
 *  - cashback: merchant marketing account → the payer's cash, `flat + amount × bps / 10 000`
 *    rounded down, capped per payment, and per user per day by a ledger limit claim (concurrent
 *    captures never pass it). A refusal (the marketing account is short, or the cap is reached)
 *    means no grant; the payment is captured all the same.
 *  - points: tenant points issuance → the payer's points account, `points` for every whole
 *    `per_amount` captured, in the tenant's points commodity (none until the tenant sets one).
 * A line is earned on by its offering's rule of the kind, else the client's common one, when the
 * rule is live in its window and the line meets its `min_amount`.
 */

/** What a payment earned, as its record keeps it (./records.ts). */
export type { Grant, Grants, PlannedRule } from './records';

export interface EarnLine {
  offeringId: string | null;
  amount: number;
}

/** Cashback of an amount, rounded down: flat + amount × bps / 10 000 (exact for every amount up to 2^45). */
export function cashbackOf(params: { bps: number; flat: number }, amount: number): number {
  const rest = amount % 10_000;
  return params.flat + ((amount - rest) / 10_000) * params.bps + Math.floor((rest * params.bps) / 10_000);
}

/** One ledger leg's bound: no grant is larger. */
const MAX_GRANT = 2 ** 45;

/** Points for an amount: `points` for every whole `per_amount`, exact, at most one ledger leg's bound. */
export function pointsOf(params: { points: number; per_amount: number }, amount: number): number {
  const exact = (BigInt(amount) / BigInt(params.per_amount)) * BigInt(params.points);
  return exact > BigInt(MAX_GRANT) ? MAX_GRANT : Number(exact);
}

function ruleFor(rules: RewardRule[], kind: RewardRule['kind'], line: EarnLine, now: string): RewardRule | undefined {
  const live = (rule: RewardRule) => (rule.starts_at === null || rule.starts_at <= now) && (rule.ends_at === null || now < rule.ends_at);
  const own = rules.find((rule) => rule.kind === kind && line.offeringId !== null && rule.offering_id === line.offeringId);
  const chosen = own ?? rules.find((rule) => rule.kind === kind && rule.offering_id === null);
  return chosen && live(chosen) && line.amount >= (chosen.scope.min_amount ?? 0) ? chosen : undefined;
}

/** What each rule grants for the lines it applies to. */
export function grantsByRule(rules: RewardRule[], kind: RewardRule['kind'], lines: EarnLine[], now: string): Map<RewardRule, number> {
  const base = new Map<RewardRule, number>();
  for (const line of lines) {
    const rule = ruleFor(rules, kind, line, now);
    if (rule) base.set(rule, (base.get(rule) ?? 0) + line.amount);
  }
  const granted = new Map<RewardRule, number>();
  for (const [rule, amount] of base) {
    const value =
      kind === 'cashback'
        ? Math.min(cashbackOf(rule.params as { bps: number; flat: number }, amount), rule.caps.per_payment ?? Number.MAX_SAFE_INTEGER)
        : pointsOf(rule.params as { points: number; per_amount: number }, amount);
    if (value > 0) granted.set(rule, value);
  }
  return granted;
}

/** What a capture is earned on, and when it was asked (rule windows, the daily cap's day). */
export interface EarnInput {
  tenantId: string;
  ledgerId: string;
  currency: string;
  userId: string;
  payerAccountId: string;
  merchantId: string;
  /** The client whose rules apply (an order's); omitted for a plain payment: its merchant's client, if it has one. */
  clientId?: string;
  lines: EarnLine[];
  at: string;
}

/** A move of a reward between two accounts of the tenant's ledger, in one commodity. */
interface PlannedMove {
  amount: number;
  rules: PlannedRule[];
  commodity: string;
  from_account_id: string;
  to_account_id: string;
}

/**
 * What a capture earns, decided before its saga starts and pinned with its Idempotency-Key: the
 * rules that applied (ids, versions, amounts), the accounts and the daily caps' limit claims.
 * Every try of the saga posts exactly this (postRewards), whatever the rules say by then: a rule
 * replaced or disabled between a crash and the resume changes nothing of a capture already asked.
 * JSON as it is stored.
 */
export interface RewardPlan {
  ledger_id: string;
  user_id: string;
  /** The instant the rules were read at (their windows, the daily cap's day). */
  at: string;
  cashback: (PlannedMove & { limit_claims: { key: string; amount: number; max: number; expires_at: string }[] }) | null;
  points: PlannedMove | null;
}

/** The client a merchant's profile is, if any. */
async function clientOfMerchant(runtime: WalletDeps, merchantId: string): Promise<string | null> {
  const item = await getItem(runtime, catalogKeys.merchantClient(merchantId));
  return item ? toMerchantClient(item).client_id : null;
}

/** A ledger refusal (not an in-flight or reused key): no grant, never a failed capture or refund. */
export const ledgerSaidNo = (error: unknown) => error instanceof LedgerRefusal && error.code !== 'idempotency_in_flight' && error.code !== 'idempotency_key_reuse';

const planned = (granted: Map<RewardRule, number>): PlannedRule[] => [...granted].map(([rule, amount]) => ({ id: rule.id, version: rule.version, amount }));

/**
 * Plans what a capture earns from the live rules (null: nothing), opening the reward accounts it
 * moves between. Called before the saga starts; its answer is pinned and never computed again.
 */
export async function planRewards(runtime: WalletDeps, input: EarnInput): Promise<RewardPlan | null> {
  const clientId = input.clientId ?? (await clientOfMerchant(runtime, input.merchantId));
  if (clientId === null) return null;
  const rules = await liveRules(runtime, clientId);
  if (rules.length === 0) return null;
  const plan: RewardPlan = { ledger_id: input.ledgerId, user_id: input.userId, at: input.at, cashback: null, points: null };

  const cashback = grantsByRule(rules, 'cashback', input.lines, input.at);
  if (cashback.size > 0) {
    const day = input.at.slice(0, 10);
    const dayEnds = new Date(Date.parse(`${day}T00:00:00.000Z`) + 2 * 86_400_000).toISOString();
    plan.cashback = {
      amount: Math.min([...cashback.values()].reduce((sum, value) => sum + value, 0), MAX_GRANT),
      rules: planned(cashback),
      commodity: input.currency,
      from_account_id: await rewardAccount(runtime, input.ledgerId, input.tenantId, { type: 'merchant', id: input.merchantId }, 'marketing', input.currency),
      to_account_id: input.payerAccountId,
      limit_claims: [...cashback].flatMap(([rule, value]) =>
        rule.caps.per_user_per_day === undefined ? [] : [{ key: `cashback:${rule.id}:${input.userId}:${day}`, amount: value, max: rule.caps.per_user_per_day, expires_at: dayEnds }],
      ),
    };
  }

  const points = grantsByRule(rules, 'accrual', input.lines, input.at);
  const settings = points.size > 0 ? await getSettings(runtime, input.tenantId) : undefined;
  if (settings) {
    const commodity = settings.points_commodity;
    const [issuance, wallet] = await Promise.all([
      rewardAccount(runtime, input.ledgerId, input.tenantId, { type: 'tenant', id: input.tenantId }, 'points_issuance', commodity),
      rewardAccount(runtime, input.ledgerId, input.tenantId, { type: 'user', id: input.userId }, 'points', commodity),
    ]);
    const total = [...points.values()].reduce((sum, value) => sum + value, 0);
    plan.points = { amount: Math.min(total, MAX_GRANT), rules: planned(points), commodity, from_account_id: issuance, to_account_id: wallet };
  }
  return plan.cashback || plan.points ? plan : null;
}

/**
 * Posts a pinned plan (each an idempotent posting under a key derived from the capture's), and
 * answers the grants. Deterministic from the plan: a resume sends the first try's postings byte
 * for byte, and the ledger replays them (or their refusals). A refusal (the marketing account is
 * short, the daily cap is reached) is no grant; the payment is captured all the same.
 */
export async function postRewards(runtime: WalletDeps, plan: RewardPlan | null, capture: { paymentId: string; ledgerKey: string }): Promise<Grants> {
  const grants: Grants = { cashback: null, points: null };
  if (!plan) return grants;
  const ledger = runtime.ledger();
  const metadata = { payment_id: capture.paymentId, user_id: plan.user_id };
  const rulesOf = (move: PlannedMove) => ({ rule_ids: move.rules.map((rule) => rule.id), rules: move.rules });
  if (plan.cashback) {
    const move = plan.cashback;
    try {
      const posted: Transaction = await ledger.post(
        plan.ledger_id,
        {
          type: 'cashback',
          reference_id: capture.paymentId,
          metadata,
          legs: moveLegs(move.commodity, move.from_account_id, move.to_account_id, move.amount),
          ...(move.limit_claims.length > 0 ? { limit_claims: move.limit_claims } : {}),
        },
        `${capture.ledgerKey}:cashback`,
      );
      grants.cashback = { amount: move.amount, ...rulesOf(move), ledger_transaction_id: posted.id };
    } catch (error) {
      if (!ledgerSaidNo(error)) throw error;
    }
  }
  if (plan.points) {
    const move = plan.points;
    try {
      const posted = await ledger.post(
        plan.ledger_id,
        { type: 'points_accrual', reference_id: capture.paymentId, metadata, legs: moveLegs(move.commodity, move.from_account_id, move.to_account_id, move.amount) },
        `${capture.ledgerKey}:points`,
      );
      grants.points = { amount: move.amount, commodity: move.commodity, ...rulesOf(move), ledger_transaction_id: posted.id };
    } catch (error) {
      if (!ledgerSaidNo(error)) throw error;
    }
  }
  return grants;
}

/** One history entry of a user's rewards. */
export function historyItem(runtime: WalletDeps, tenantId: string, userId: string, entry: { kind: string; amount: number; cash?: number; payment_id: string | null; rule_id: string | null; ledger_transaction_id: string }): TransactItem {
  const id = runtime.ids();
  return {
    Put: {
      TableName: runtime.table,
      Item: { ...rewardKeys.entry(id), entity: 'reward_entry', tenant_id: tenantId, gsi1pk: rewardKeys.history(userId), gsi1sk: id, id, ...entry, created_at: runtime.clock.now().toISOString() },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The capture's commit items for what it earned: the payment's record, the user's totals, history and events. */
export function grantItems(runtime: WalletDeps, tenantId: string, userId: string, paymentId: string, grants: Grants, capturedAmount: number): TransactItem[] {
  if (!grants.cashback && !grants.points) return [];
  const items: TransactItem[] = [
    {
      Put: {
        TableName: runtime.table,
        Item: { ...rewardKeys.earned(paymentId), entity: 'payment_rewards', tenant_id: tenantId, user_id: userId, captured_amount: capturedAmount, grants, clawed: { cashback: 0, points: 0 } },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: runtime.table,
        Key: rewardKeys.user(userId),
        UpdateExpression: 'SET entity = :entity, tenant_id = :tenant ADD cashback_earned :cash, points_earned :points',
        ExpressionAttributeValues: { ':entity': 'user_rewards', ':tenant': tenantId, ':cash': grants.cashback?.amount ?? 0, ':points': grants.points?.amount ?? 0 },
      },
    },
  ];
  if (grants.cashback) {
    const grant = { payment_id: paymentId, user_id: userId, amount: grants.cashback.amount, rule_ids: grants.cashback.rule_ids, ledger_transaction_id: grants.cashback.ledger_transaction_id };
    items.push(
      historyItem(runtime, tenantId, userId, { kind: 'cashback', amount: grant.amount, payment_id: paymentId, rule_id: grant.rule_ids[0] ?? null, ledger_transaction_id: grant.ledger_transaction_id }),
      outboxItem(runtime, { type: 'cashback.granted', tenantId, data: { cashback: grant } }).item,
    );
  }
  if (grants.points) {
    const accrual = { payment_id: paymentId, user_id: userId, points: grants.points.amount, commodity: grants.points.commodity, rule_ids: grants.points.rule_ids, ledger_transaction_id: grants.points.ledger_transaction_id };
    items.push(
      historyItem(runtime, tenantId, userId, { kind: 'points', amount: accrual.points, payment_id: paymentId, rule_id: accrual.rule_ids[0] ?? null, ledger_transaction_id: accrual.ledger_transaction_id }),
      outboxItem(runtime, { type: 'points.accrued', tenantId, data: { points: accrual } }).item,
    );
  }
  return items;
}
