/**
 * WalletTable keys of the payments area (payments, refunds; merchants: ../merchants/keys.ts). Each entity has a
 * partition of its own; listings go through gsi1 (tenant) and gsi2 (user), newest first by id.
 * gsi3 holds an authorized payment's hold while it is open (removed on capture, void, expiry).
 */
export const HOLD_SHARDS = 4;

export const paymentKeys = {
  payment: (paymentId: string) => ({ pk: `PAYMENT#${paymentId}`, sk: 'PAYMENT' }),
  tenantPayments: (tenantId: string) => `TENANT#${tenantId}#PAYMENTS`,
  userPayments: (userId: string) => `USER#${userId}#PAYMENTS`,
  paymentIndexes: (tenantId: string, paymentId: string, userId: string) => ({
    gsi1pk: `TENANT#${tenantId}#PAYMENTS`,
    gsi1sk: paymentId,
    gsi2pk: `USER#${userId}#PAYMENTS`,
    gsi2sk: paymentId,
  }),
  hold: (paymentId: string, expiresAt: string) => ({
    gsi3pk: `PAYMENT_HOLDS#${parseInt(paymentId.slice(-2), 16) % HOLD_SHARDS}`,
    gsi3sk: `${expiresAt}#${paymentId}`,
  }),
  holdShard: (shard: number) => `PAYMENT_HOLDS#${shard}`,

  refund: (refundId: string) => ({ pk: `REFUND#${refundId}`, sk: 'REFUND' }),
  tenantRefunds: (tenantId: string) => `TENANT#${tenantId}#REFUNDS`,
  userRefunds: (userId: string) => `USER#${userId}#REFUNDS`,
  refundIndexes: (tenantId: string, refundId: string, userId: string) => ({
    gsi1pk: `TENANT#${tenantId}#REFUNDS`,
    gsi1sk: refundId,
    gsi2pk: `USER#${userId}#REFUNDS`,
    gsi2sk: refundId,
  }),
};
