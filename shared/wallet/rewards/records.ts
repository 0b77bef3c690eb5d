import { codec, int, list, nullable, obj, opt, str, strList, type Reader } from '../../kernel/codec';

/**
 * What a payment earned (its `payment_rewards` item, ./keys.ts `earned`): the grants its capture
 * posted, and what refunds clawed back since. Apart from the earning code so reconciliation reads
 * a grant's transaction without loading it; decoded through its codec (../../kernel/codec.ts).
 */

/** One rule's part of a grant, as planned: the rule, its version then, and what it grants. */
export interface PlannedRule {
  id: string;
  version: number;
  amount: number;
}

export interface Grant {
  amount: number;
  rule_ids: string[];
  /** The rules as planned, with their versions (absent on grants recorded before plans were pinned). */
  rules?: PlannedRule[];
  ledger_transaction_id: string;
}

export interface Grants {
  cashback: Grant | null;
  points: (Grant & { commodity: string }) | null;
}

export interface PaymentRewards {
  tenant_id: string;
  user_id: string;
  captured_amount: number;
  grants: Grants;
  clawed: { cashback: number; points: number };
}

const grantFields = {
  amount: int,
  rule_ids: strList,
  rules: opt(list(obj<PlannedRule>({ id: str, version: int, amount: int }))),
  ledger_transaction_id: str,
};
const grant: Reader<Grant> = obj<Grant>(grantFields);
const pointsGrant: Reader<Grant & { commodity: string }> = obj<Grant & { commodity: string }>({ ...grantFields, commodity: str });

export const toPaymentRewards = codec<PaymentRewards>('payment_rewards', {
  tenant_id: str,
  user_id: str,
  captured_amount: int,
  grants: obj<Grants>({ cashback: nullable(grant), points: nullable(pointsGrant) }),
  clawed: obj<PaymentRewards['clawed']>({ cashback: int, points: int }),
});
