/** WalletTable keys of subscriptions (docs/subscriptions.md, docs/data-model.md). */

export const SUBSCRIPTION_SHARDS = 4;

export const subscriptionKeys = {
  subscription: (id: string) => ({ pk: `SUBSCRIPTION#${id}`, sk: 'SUBSCRIPTION' }),
  /** One charged period, beside its subscription (the charge history, and what reconciliation reads). */
  charge: (id: string, period: number) => ({ pk: `SUBSCRIPTION#${id}`, sk: `CHARGE#${String(period).padStart(6, '0')}` }),
  /** gsi1: a tenant's subscriptions; gsi2: a subscriber's; newest first. */
  indexes: (tenantId: string, userId: string, id: string) => ({ gsi1pk: `TENANT#${tenantId}#SUBSCRIPTIONS`, gsi1sk: id, gsi2pk: `USER#${userId}#SUBSCRIPTIONS`, gsi2sk: id }),
  tenantSubscriptions: (tenantId: string) => `TENANT#${tenantId}#SUBSCRIPTIONS`,
  userSubscriptions: (userId: string) => `USER#${userId}#SUBSCRIPTIONS`,
  /** gsi3 while a charge is due at next_charge_at (active or retrying) or a claimed one is held; gone when paused or canceled. */
  due: (id: string, at: string) => ({ gsi3pk: `SUBSCRIPTIONS_DUE#${parseInt(id.slice(-2), 16) % SUBSCRIPTION_SHARDS}`, gsi3sk: `${at}#${id}` }),
  dueShard: (shard: number) => `SUBSCRIPTIONS_DUE#${shard}`,
  /**
   * A payer's dunning hint: written when one of their subscriptions becomes past_due, read (one
   * BatchGetItem per stream batch) so a credit looks for past-due subscriptions only when there may be one.
   */
  dunningHint: (userId: string) => ({ pk: `USER#${userId}#DUNNING`, sk: 'DUNNING' }),
};
