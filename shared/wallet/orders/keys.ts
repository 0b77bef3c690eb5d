/** WalletTable keys of orders (docs/orders.md, docs/data-model.md). */

export const ORDER_SHARDS = 4;

export const orderKeys = {
  order: (orderId: string) => ({ pk: `ORDER#${orderId}`, sk: 'ORDER' }),
  /** gsi1: a tenant's orders; gsi2: a shopper's; newest first. */
  indexes: (tenantId: string, userId: string, orderId: string) => ({ gsi1pk: `TENANT#${tenantId}#ORDERS`, gsi1sk: orderId, gsi2pk: `USER#${userId}#ORDERS`, gsi2sk: orderId }),
  tenantOrders: (tenantId: string) => `TENANT#${tenantId}#ORDERS`,
  userOrders: (userId: string) => `USER#${userId}#ORDERS`,
  /** gsi3 while open: due for expiry at expires_at (sharded; the keys go when the order leaves open). */
  open: (orderId: string, expiresAt: string) => ({ gsi3pk: `ORDERS_OPEN#${parseInt(orderId.slice(-2), 16) % ORDER_SHARDS}`, gsi3sk: `${expiresAt}#${orderId}` }),
  openShard: (shard: number) => `ORDERS_OPEN#${shard}`,
};
