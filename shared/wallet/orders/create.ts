import type * as z from '../../kernel/zod';
import { getItem, getItems, queryPage } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { config } from '../../kernel/config';
import { AppError } from '../../kernel/errors';
import { isExplorable, readClient } from '../catalog/clients';
import { catalogKeys } from '../catalog/keys';
import { isLive, toOfferingRecord, toVariantRecord, type OfferingRecord, type VariantRecord } from '../catalog/records';
import { commitVersioned, withFreshReads } from '../../aws/fresh-reads';
import type { WalletDeps } from '../deps';
import { merchantRecord } from '../merchants/merchants';
import { MAX_PAYMENT_DEBIT, splitCharge } from '../payments/fees';
import { defineOperation } from '../saga/registry';
import { runOperation } from '../saga/engine';
import { commissionOf } from '../tenancy/fees';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { orderItem, readOrder, toOrder, type OrderLine, type OrderRecord } from './records';
import type { orderCreate } from './schemas';
import { stockStep } from './stock';

/**
 * Creating an order (docs/orders.md): the lines are priced from the catalog and the commission,
 * fee rule and accounts pinned; then, once per Idempotency-Key, every line's stock is reserved in
 * ONE transaction with the order, its movements and `order.created`, against the summed demand
 * on each variant (all lines or none: `out_of_stock` names the variants short). The order holds
 * its stock until paid, canceled or expired (ORDER_HOLD_SECONDS).
 */

interface CreateRequest {
  order: Omit<OrderRecord, 'id' | 'created_at' | 'updated_at' | 'expires_at' | 'version'>;
}

export const ORDER_CREATE = defineOperation('order.create', async ({ runtime, operationId, principal, request, startedAt }) => ({
  // No ledger here: the order and its reservation are the step that may refuse (out_of_stock),
  // before anything is written; the commit only answers (a commit must refuse nothing).
  post: () =>
    withFreshReads(async () => {
      const { order: draft } = request as CreateRequest;
      // The order's id is the operation's: a resume after the order was written answers it.
      const existing = await readOrder(runtime, operationId);
      if (existing) return toOrder(existing);
      const expiresAt = new Date(new Date(startedAt).getTime() + config.ORDER_HOLD_SECONDS * 1000).toISOString();
      const record: OrderRecord = { ...draft, id: operationId, expires_at: expiresAt, created_at: startedAt, updated_at: startedAt, version: 1 };
      const order = toOrder(record);
      const reserve = await stockStep(runtime, principal, record, 'reservation');
      const items = [
        // The order records what it holds: its release or sale moves exactly that (./stock.ts).
        { Put: { TableName: runtime.table, Item: orderItem({ ...record, holds: reserve.units }), ConditionExpression: 'attribute_not_exists(pk)' } },
        ...reserve.items,
        outboxItem(runtime, { type: 'order.created', tenantId: record.tenant_id, clientId: record.client_id, data: { order } }).item,
      ];
      // Any failed condition is a read gone stale (a variant's version, or a twin wrote the order): read again.
      await commitVersioned(runtime, items, []);
      return order;
    }),
  commit: async (order) => ({ items: [], status: 201, body: order }),
}));

/**
 * Opens an order for a shopper once per Idempotency-Key. Refuses: invalid_request (no user, a
 * variant not in the client's catalog or retired, a plan, too large), user_not_found,
 * client_not_found (unknown, inactive or hidden), offering_not_found (not published),
 * out_of_stock, idempotency_key_reuse, idempotency_in_flight.
 */
export async function createOrder(
  runtime: WalletDeps,
  principal: Principal,
  tenantId: string,
  input: z.infer<typeof orderCreate>,
  options: { idempotencyKey: string; requestId: string },
): Promise<Outcome> {
  const userId = input.user_id ?? principal.userId;
  if (userId === undefined) throw new AppError('invalid_request', 'user_id is required.', { errors: [{ field: 'user_id', message: 'required' }] });
  if (principal.userId !== undefined && userId !== principal.userId) throw new AppError('user_not_found', `No user ${userId}.`);
  const [tenant, user, client] = await Promise.all([getTenantRecord(runtime, tenantId), getUserRecord(runtime, tenantId, userId), readClient(runtime, tenantId, input.client_id)]);
  if (!isExplorable(client)) throw new AppError('client_not_found', `No client ${input.client_id}.`);
  const merchant = await merchantRecord(runtime, tenantId, client.merchant_id);
  const lines = await priceLines(runtime, client.id, input.lines, client.commission_bps);
  const amount = lines.reduce((sum, line) => sum + line.amount, 0);
  const commission = lines.reduce((sum, line) => sum + commissionOf(line.commission_bps, line.amount), 0);
  // What the shopper is debited (with `add`, the commission on top) is held to the ledger's cap, as a payment's is.
  if (splitCharge(amount, 0, commission, tenant.commission_mode).payer_debit > MAX_PAYMENT_DEBIT) {
    throw new AppError('invalid_request', `The order with its commission must not exceed ${MAX_PAYMENT_DEBIT}.`, { errors: [{ field: 'lines', message: 'too large' }] });
  }
  const order: CreateRequest['order'] = {
    tenant_id: tenantId,
    client_id: client.id,
    user_id: userId,
    status: 'open',
    lines,
    amount,
    currency: tenant.currency,
    commission,
    commission_mode: tenant.commission_mode,
    fee: 0,
    payment_id: null,
    metadata: input.metadata ?? {},
    quote: {
      merchant_id: client.merchant_id,
      ledger_id: tenant.ledger_id,
      payer_account_id: user.cash_account_id,
      settlement_account_id: merchant.settlement_account_id,
      revenue_account_id: tenant.accounts.revenue,
      fee_rule: tenant.fees.payment,
    },
    claim: null,
  };
  return runOperation(runtime, { operation: ORDER_CREATE, tenantId, idempotencyKey: options.idempotencyKey, request: { order }, principal, requestId: options.requestId });
}

/** The lines priced from the catalog. Refuses: invalid_request (unknown, retired, a plan), offering_not_found (not published). */
async function priceLines(runtime: WalletDeps, clientId: string, wanted: { variant_id: string; quantity: number }[], clientCommission: number): Promise<OrderLine[]> {
  const ids = [...new Set(wanted.map((line) => line.variant_id))];
  const variants = new Map((await Promise.all(ids.map((id) => findVariant(runtime, clientId, id)))).map((variant) => [variant.id, variant]));
  const offerings = new Map<string, OfferingRecord>();
  const offeringIds = [...new Set([...variants.values()].map((v) => v.offering_id))];
  const heads = await getItems(runtime, offeringIds.map((id) => catalogKeys.offering(id)));
  offeringIds.forEach((id, index) => {
    const head = heads[index];
    if (head) offerings.set(id, toOfferingRecord(head));
  });
  return wanted.map((line, index) => {
    const variant = variants.get(line.variant_id)!;
    const offering = offerings.get(variant.offering_id);
    if (!offering || offering.status !== 'published') throw new AppError('offering_not_found', `Offering ${variant.offering_id} is not for sale.`);
    if (offering.kind !== 'item') throw new AppError('invalid_request', 'A plan is subscribed to, not ordered.', { errors: [{ field: `lines[${index}].variant_id`, message: 'a plan' }] });
    if (!isLive(variant)) throw new AppError('invalid_request', `Variant ${variant.id} is retired.`, { errors: [{ field: `lines[${index}].variant_id`, message: 'retired' }] });
    return {
      variant_id: variant.id,
      offering_id: variant.offering_id,
      sku: variant.sku,
      title: offering.title,
      option_values: variant.option_values,
      quantity: line.quantity,
      unit_amount: variant.amount,
      amount: variant.amount * line.quantity,
      commission_bps: offering.commission_bps ?? clientCommission,
    };
  });
}

/** A variant of the client's catalog by id. Refuses: invalid_request. */
async function findVariant(runtime: WalletDeps, clientId: string, variantId: string): Promise<VariantRecord> {
  const found = await queryPage(runtime, { index: 'gsi1', partition: catalogKeys.variantLookup(variantId).gsi1pk, cursor: undefined, limit: 1 });
  const head = found.items[0];
  // The index is eventually consistent: the variant itself is read consistently.
  const variant = head ? await getItem(runtime, catalogKeys.variant(toVariantRecord(head).offering_id, variantId)) : undefined;
  if (!variant || variant.client_id !== clientId) {
    throw new AppError('invalid_request', `No variant ${variantId} in this client's catalog.`, { errors: [{ field: 'lines', message: `unknown variant ${variantId}` }] });
  }
  return toVariantRecord(variant);
}
