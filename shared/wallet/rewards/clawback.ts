import type { TransactItem } from '../../aws/dynamodb';
import { getItem } from '../../aws/store';
import type { WalletDeps } from '../deps';
import { moveLegs } from '../money/legs';
import { rewardAccount } from './accounts';
import { historyItem, ledgerSaidNo } from './earn';
import { rewardKeys } from './keys';
import { toPaymentRewards } from './records';

/**
 * Refunds claw back what the payment earned (docs/rewards.md "Refunds claw back"), in two halves
 * like earning: planClawback decides, before the refund's saga starts, how much cash and how many
 * points come back and between which accounts, and the refund pins it in its quote;
 * postClawback posts exactly that inside the saga. Planned once because the points a user holds
 * change (the first try's own clawback takes them): a resume that asked again would find fewer
 * and record less than the ledger took.
 */

export interface Clawback {
  cash: number;
  points: number;
  cash_transaction_id: string | null;
  points_transaction_id: string | null;
}

/** One move back, from the user's account to the pool it came from. */
interface PlannedTakeBack {
  amount: number;
  commodity: string;
  from_account_id: string;
  to_account_id: string;
}

/** What a refund takes back, pinned in its quote (JSON as stored). */
export interface ClawbackPlan {
  ledger_id: string;
  user_id: string;
  cash: PlannedTakeBack | null;
  points: PlannedTakeBack | null;
}

/** What a clawback needs of the refunded payment (payments sit above rewards: their record, as read there). */
export interface ClawedPayment {
  id: string;
  ledger_id: string;
  currency: string;
  merchant_id: string;
  payer_account_id: string;
}

/**
 * Plans the clawback of a refund of `refundAmount` on a payment (its record): `earned ×
 * refunded / captured`, rounded down (the user keeps the rounding); cash back to the merchant's
 * marketing account (the refund has just credited the payer), points back to issuance, no more
 * than the user holds now (converted points stay converted). Null: the payment earned nothing.
 */
export async function planClawback(runtime: WalletDeps, tenantId: string, payment: ClawedPayment, refundAmount: number): Promise<ClawbackPlan | null> {
  const paymentId = payment.id;
  const item = await getItem(runtime, rewardKeys.earned(paymentId));
  if (!item) return null;
  const { grants, captured_amount: captured, user_id: userId } = toPaymentRewards(item);
  const ledgerId = payment.ledger_id;
  const share = (amount: number) => Number((BigInt(amount) * BigInt(refundAmount)) / BigInt(captured));
  const plan: ClawbackPlan = { ledger_id: ledgerId, user_id: userId, cash: null, points: null };
  const cash = grants.cashback ? share(grants.cashback.amount) : 0;
  if (cash > 0) {
    const currency = payment.currency;
    const marketing = await rewardAccount(runtime, ledgerId, tenantId, { type: 'merchant', id: payment.merchant_id }, 'marketing', currency);
    plan.cash = { amount: cash, commodity: currency, from_account_id: payment.payer_account_id, to_account_id: marketing };
  }
  if (grants.points) {
    const commodity = grants.points.commodity;
    const wallet = await rewardAccount(runtime, ledgerId, tenantId, { type: 'user', id: userId }, 'points', commodity);
    const held = (await runtime.ledger().getAccount(ledgerId, wallet)).balance.available;
    const points = Math.min(share(grants.points.amount), Math.max(0, held));
    if (points > 0) {
      const issuance = await rewardAccount(runtime, ledgerId, tenantId, { type: 'tenant', id: tenantId }, 'points_issuance', commodity);
      plan.points = { amount: points, commodity, from_account_id: wallet, to_account_id: issuance };
    }
  }
  return plan.cash || plan.points ? plan : null;
}

/**
 * Posts a pinned clawback plan in its own postings, under keys derived from the refund's, and
 * answers what was taken back. A refused take-back (the user spent the cash, converted the points
 * meanwhile) takes nothing; the refund stands. A resume replays the first try's postings, or
 * their refusals, and so answers what the ledger did.
 */
export async function postClawback(runtime: WalletDeps, plan: ClawbackPlan | null, refund: { paymentId: string; ledgerKey: string }): Promise<Clawback | null> {
  if (!plan) return null;
  const result: Clawback = { cash: 0, points: 0, cash_transaction_id: null, points_transaction_id: null };
  const takeBack = async (move: PlannedTakeBack, type: string, step: string): Promise<string | null> => {
    try {
      const posted = await runtime.ledger().post(
        plan.ledger_id,
        { type, reference_id: refund.paymentId, metadata: { payment_id: refund.paymentId, user_id: plan.user_id }, legs: moveLegs(move.commodity, move.from_account_id, move.to_account_id, move.amount) },
        `${refund.ledgerKey}:${step}`,
      );
      return posted.id;
    } catch (error) {
      if (!ledgerSaidNo(error)) throw error;
      return null;
    }
  };
  if (plan.cash) {
    result.cash_transaction_id = await takeBack(plan.cash, 'cashback_clawback', 'clawback-cash');
    if (result.cash_transaction_id) result.cash = plan.cash.amount;
  }
  if (plan.points) {
    result.points_transaction_id = await takeBack(plan.points, 'points_clawback', 'clawback-points');
    if (result.points_transaction_id) result.points = plan.points.amount;
  }
  return result;
}

/** A refund's commit items for what it took back: the payment's clawed totals, the user's, history. */
export function clawbackItems(runtime: WalletDeps, tenantId: string, paymentId: string, userId: string, clawback: Clawback | null): TransactItem[] {
  if (!clawback || (clawback.cash === 0 && clawback.points === 0)) return [];
  const items: TransactItem[] = [
    {
      Update: {
        TableName: runtime.table,
        Key: rewardKeys.earned(paymentId),
        UpdateExpression: 'ADD clawed.cashback :cash, clawed.points :points',
        ExpressionAttributeValues: { ':cash': clawback.cash, ':points': clawback.points },
      },
    },
    {
      Update: {
        TableName: runtime.table,
        Key: rewardKeys.user(userId),
        UpdateExpression: 'ADD cashback_earned :cash, points_earned :points',
        ExpressionAttributeValues: { ':cash': -clawback.cash, ':points': -clawback.points },
      },
    },
  ];
  if (clawback.cash_transaction_id) items.push(historyItem(runtime, tenantId, userId, { kind: 'cashback_clawback', amount: -clawback.cash, payment_id: paymentId, rule_id: null, ledger_transaction_id: clawback.cash_transaction_id }));
  if (clawback.points_transaction_id) items.push(historyItem(runtime, tenantId, userId, { kind: 'points_clawback', amount: -clawback.points, payment_id: paymentId, rule_id: null, ledger_transaction_id: clawback.points_transaction_id }));
  return items;
}
