import { getItem } from '../../aws/store';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import type { Transaction } from '../../ledger-client/contract';
import { isExplorable, readClient } from '../catalog/clients';
import { catalogKeys } from '../catalog/keys';
import { toOfferingRecord } from '../catalog/records';
import type { WalletDeps } from '../deps';
import { merchantRecord } from '../merchants/merchants';
import { captureLegs } from '../money/legs';
import { defineOperation } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import { commissionOf } from '../tenancy/fees';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { chargeItems, chargeOf, charged } from './billing';
import { subscriptionItem, toSubscription, type SubscriptionRecord } from './records';

/**
 * Subscribing from Explore (spec part 4 item 14): a consumer subscribes to a published plan of a
 * visible client; amount, interval and the commission come from the catalog and are fixed at
 * signup. The first period is charged at once, in the same saga: the ledger posting under the
 * operation's key, then the subscription, its first charge and `subscription.charged` in one
 * transaction. A refused first charge answers the refusal and creates nothing.
 */

type Draft = Omit<SubscriptionRecord, 'id' | 'created_at' | 'updated_at' | 'anchor_at' | 'next_charge_at' | 'version'>;

export const SUBSCRIPTION_CREATE = defineOperation('subscription.create', async ({ runtime, operationId, pinned, startedAt }) => {
  // What the catalog and the tenant said at the first request, whatever changed since.
  const draft = pinned as Draft;
  // Period 0 is due at signup; the record after it is charged is the one that commits.
  const record: SubscriptionRecord = { ...draft, id: operationId, anchor_at: startedAt, next_charge_at: startedAt, created_at: startedAt, updated_at: startedAt, version: 1 };
  return {
    post: (ledgerKey) =>
      runtime.ledger().post(
        record.quote.ledger_id,
        { type: 'subscription', reference_id: record.id, metadata: { subscription_id: record.id, period: '0' }, legs: captureLegs({ currency: record.currency, ...record.quote }, chargeOf(record)) },
        ledgerKey,
      ),
    commit: async (posted) => {
      const after = charged(record, startedAt);
      return {
        items: [{ Put: { TableName: runtime.table, Item: subscriptionItem(after), ConditionExpression: 'attribute_not_exists(pk)' } }, ...chargeItems(runtime, after, 0, posted as Transaction)],
        status: 201,
        body: toSubscription(after),
      };
    },
  };
});

/**
 * Subscribes the caller (a consumer token) to a plan, once per Idempotency-Key. Refuses:
 * offering_not_found (not published, archived, of another tenant, or its client hidden or
 * inactive), not_a_plan, insufficient_funds and the ledger's other refusals of the first charge,
 * idempotency_key_reuse, idempotency_in_flight.
 */
export async function subscribe(runtime: WalletDeps, principal: Principal, offeringId: string, options: { idempotencyKey: string; requestId: string; faults?: SagaFaults }): Promise<Outcome> {
  const tenantId = principal.tenantId!;
  const userId = principal.userId!;
  const item = await getItem(runtime, catalogKeys.offering(offeringId));
  const offering = item && toOfferingRecord(item);
  if (!offering || offering.tenant_id !== tenantId || offering.status !== 'published') throw new AppError('offering_not_found', `No offering ${offeringId}.`);
  const client = await readClient(runtime, tenantId, offering.client_id);
  if (!isExplorable(client)) throw new AppError('offering_not_found', `No offering ${offeringId}.`);
  if (offering.kind !== 'plan') throw new AppError('not_a_plan', 'This offering is an item: order it instead.');
  const [tenant, user, merchant] = await Promise.all([getTenantRecord(runtime, tenantId), getUserRecord(runtime, tenantId, userId), merchantRecord(runtime, tenantId, client.merchant_id)]);
  const amount = offering.amount!;
  const commissionBps = offering.commission_bps ?? client.commission_bps;
  const subscription: Draft = {
    tenant_id: tenantId,
    user_id: userId,
    merchant_id: client.merchant_id,
    client_id: client.id,
    offering_id: offering.id,
    plan_name: offering.title,
    amount,
    commission: commissionOf(commissionBps, amount),
    currency: tenant.currency,
    interval: offering.interval!,
    status: 'active',
    pause_reason: null,
    retry_count: 0,
    periods_charged: 0,
    anchor_period: 0,
    cancel_at_period_end: false,
    metadata: {},
    canceled_at: null,
    quote: {
      ledger_id: tenant.ledger_id,
      payer_account_id: user.cash_account_id,
      settlement_account_id: merchant.settlement_account_id,
      revenue_account_id: tenant.accounts.revenue,
      fee_rule: tenant.fees.subscription,
      commission_mode: tenant.commission_mode,
    },
  };
  if (chargeOf(subscription).merchant_credit < 0) throw new AppError('invalid_request', 'The fee and commission exceed the plan\'s amount.');
  return runOperation(runtime, { operation: SUBSCRIPTION_CREATE, tenantId, idempotencyKey: options.idempotencyKey, request: { offering_id: offeringId }, pinned: subscription, principal, requestId: options.requestId }, options.faults);
}
