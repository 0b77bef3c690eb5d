import type * as z from '../../kernel/zod';
import { getItem, queryPage, type Item, type Page } from '../../aws/store';
import { bool, codec, int, list, mapOf, nullable, obj, oneOf, opt, str, strList, strMap } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import { COMMISSION_MODES, type FeeRule } from '../tenancy/fees';
import { feeRule } from '../tenancy/records';
import { orderKeys } from './keys';
import type { order, orderLine, orderListQuery } from './schemas';
import { recordFields } from '../keys';
import type { OwnerScope } from '../principals';

/**
 * Orders as stored and as shown, and the reads every order route shares: who may see an order is
 * one rule (`ownerScopeOf`): a shopper its own, a key bound to a client that client's, the tenant
 * everything of the tenant; anything else is `not_found`, exactly as if it did not exist.
 */

export type Order = z.infer<typeof order>;
export type OrderLine = z.infer<typeof orderLine>;
export type OrderStatus = Order['status'];

export interface OrderRecord extends Omit<Order, 'status'> {
  /** `paying` is internal: a pay operation holds the order while its money moves. */
  status: OrderStatus | 'paying';
  tenant_id: string;
  /** Pinned at creation: what paying needs, whatever changes in between. */
  quote: {
    merchant_id: string;
    ledger_id: string;
    payer_account_id: string;
    settlement_account_id: string;
    revenue_account_id: string;
    fee_rule: FeeRule;
  };
  /** The pay operation that holds the order while its money moves (status `paying`). */
  claim?: string | null;
  /**
   * The units the order holds per variant, recorded by its reservation (tracked variants only):
   * its release or sale acts on exactly these. Absent on orders written before holds were
   * recorded, which act by the variants' track_inventory of now.
   */
  holds?: Record<string, number>;
  /** What its sale took off on_hand per variant: what a restock returns. */
  sold?: Record<string, number>;
  /** The cancel operation that ended it: a resume of that operation answers it. */
  ended_by?: string;
  /** A refund returned its units to stock. */
  restocked?: boolean;
  version: number;
}

/** Statuses as stored, `paying` included (spelt here, so the expiry worker does not build the API's schemas). */
const STORED_ORDER_STATUSES = ['open', 'paying', 'paid', 'canceled', 'expired'] as const satisfies readonly OrderRecord['status'][];

/** Units per variant id (what an order holds, what its sale took). */
const units = mapOf(int);

/**
 * The order item's codec (../../kernel/codec.ts): every field an order is written with, so an
 * order read, changed and put back keeps all of them. Orders from before holds and sales were
 * recorded have neither (./stock.ts acts on the variants' flags of now for them).
 */
export const toOrderRecord = codec<OrderRecord>('order', {
  id: str,
  tenant_id: str,
  client_id: str,
  user_id: str,
  status: oneOf(...STORED_ORDER_STATUSES),
  lines: list(
    obj<OrderLine>({ variant_id: str, offering_id: str, sku: str, title: str, option_values: strList, quantity: int, unit_amount: int, amount: int, commission_bps: int }),
  ),
  amount: int,
  currency: str,
  commission: int,
  commission_mode: oneOf(...COMMISSION_MODES),
  fee: int,
  payment_id: nullable(str),
  metadata: strMap,
  expires_at: str,
  quote: obj<OrderRecord['quote']>({ merchant_id: str, ledger_id: str, payer_account_id: str, settlement_account_id: str, revenue_account_id: str, fee_rule: feeRule }),
  claim: nullable(str),
  holds: opt(units),
  sold: opt(units),
  ended_by: opt(str),
  restocked: opt(bool),
  version: int,
  created_at: str,
  updated_at: str,
});

/** The order with this id, whoever's it is (a saga's own read, its caller already checked the scope). */
export async function readOrder(deps: StoreDeps, orderId: string): Promise<OrderRecord | undefined> {
  const item = await getItem(deps, orderKeys.order(orderId));
  return item ? toOrderRecord(item) : undefined;
}

/** The order's item: its keys, its listings, and the expiry index while it is open (or being paid). */
export function orderItem(record: OrderRecord): Item {
  const fields = recordFields(record);
  const holding = record.status === 'open' || record.status === 'paying';
  return {
    ...orderKeys.order(record.id),
    ...orderKeys.indexes(record.tenant_id, record.user_id, record.id),
    ...(holding ? orderKeys.open(record.id, record.expires_at) : {}),
    entity: 'order',
    ...fields,
  };
}

/** `paying` is internal (a pay in flight): clients see the order `open` until it is paid. */
export const toOrder = (record: OrderRecord): Order => {
  return {
    id: record.id,
    client_id: record.client_id,
    user_id: record.user_id,
    status: record.status === 'paying' ? 'open' : record.status,
    lines: record.lines,
    amount: record.amount,
    currency: record.currency,
    commission: record.commission,
    commission_mode: record.commission_mode,
    fee: record.fee,
    payment_id: record.payment_id,
    metadata: record.metadata,
    expires_at: record.expires_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
};

const visible = (item: Item, scope: OwnerScope) =>
  item.tenant_id === scope.tenantId && (scope.userId === undefined || item.user_id === scope.userId) && (scope.clientId === undefined || item.client_id === scope.clientId);

/** The order as stored, if the scope sees it. Refuses: not_found. */
export async function orderRecord(deps: StoreDeps, scope: OwnerScope, orderId: string): Promise<OrderRecord> {
  const item = await getItem(deps, orderKeys.order(orderId));
  if (!item || !visible(item, scope)) throw new AppError('not_found', `No order ${orderId}.`);
  return toOrderRecord(item);
}

export async function getOrder(deps: StoreDeps, scope: OwnerScope, orderId: string): Promise<Order> {
  return toOrder(await orderRecord(deps, scope, orderId));
}

/** The tenant's orders, a shopper's own, or a client's; newest first; by status. */
export async function listOrders(deps: StoreDeps, scope: OwnerScope, query: z.infer<typeof orderListQuery>): Promise<Page<Order>> {
  const userId = scope.userId ?? query.user_id;
  if (scope.userId !== undefined && query.user_id !== undefined && query.user_id !== scope.userId) throw new AppError('user_not_found', `No user ${query.user_id}.`);
  const clientId = scope.clientId ?? query.client_id;
  if (scope.clientId !== undefined && query.client_id !== undefined && query.client_id !== scope.clientId) throw new AppError('client_not_found', `No client ${query.client_id}.`);
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (query.status) {
    names['#status'] = 'status';
    values[':status'] = query.status;
    // An order being paid still holds its stock: it lists as open. DynamoDB refuses a value the
    // expression does not use, so :paying is bound only where it is.
    if (query.status === 'open') values[':paying'] = 'paying';
    conditions.push(query.status === 'open' ? '(#status = :status OR #status = :paying)' : '#status = :status');
  }
  if (clientId) {
    values[':client'] = clientId;
    conditions.push('client_id = :client');
  }
  const page = await queryPage(deps, {
    index: userId ? 'gsi2' : 'gsi1',
    partition: userId ? orderKeys.userOrders(userId) : orderKeys.tenantOrders(scope.tenantId),
    cursor: query.cursor, created: query,
    limit: query.limit,
    ...(conditions.length > 0 ? { filter: { expression: conditions.join(' AND '), names: Object.keys(names).length > 0 ? names : undefined, values }, scanBudget: 1_000 } : {}),
  });
  // A user index of another tenant's user holds nothing of this tenant.
  return { data: page.items.filter((item) => item.tenant_id === scope.tenantId).map((item) => toOrder(toOrderRecord(item))), next_cursor: page.next_cursor };
}
