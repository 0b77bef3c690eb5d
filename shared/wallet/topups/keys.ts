/**
 * WalletTable keys of top-ups and push devices (entity chart: docs/topups.md "Data"). Each top-up
 * has a partition of its own; the tenant's and the user's listings go through gsi1 and gsi2.
 */
export const topupKeys = {
  topup: (topupId: string) => ({ pk: `TOPUP#${topupId}`, sk: 'TOPUP' }),
  /** gsi1: a tenant's top-ups, newest first by id; gsi2: a user's. */
  topupIndexes: (tenantId: string, userId: string, topupId: string) => ({
    gsi1pk: `TENANT#${tenantId}#TOPUPS`,
    gsi1sk: topupId,
    gsi2pk: `USER#${userId}#TOPUPS`,
    gsi2sk: topupId,
  }),
  tenantTopups: (tenantId: string) => `TENANT#${tenantId}#TOPUPS`,
  userTopups: (userId: string) => `USER#${userId}#TOPUPS`,

  /**
   * One item per push token in a tenant (the token identifies one app install), so a token that
   * changes hands moves to its new user instead of notifying both.
   */
  device: (tenantId: string, tokenHash: string) => ({ pk: `TENANT#${tenantId}#DEVICE#${tokenHash}`, sk: 'DEVICE' }),
  /** gsi1: a user's devices. */
  deviceIndex: (userId: string, deviceId: string) => ({ gsi1pk: `USER#${userId}#DEVICES`, gsi1sk: deviceId }),
  userDevices: (userId: string) => `USER#${userId}#DEVICES`,
};

/**
 * The saga key of a processor event (shared/wallet/saga.ts). It contains line feeds, which no
 * HTTP header can carry, so no client's Idempotency-Key can collide with it and block the event.
 */
export const processorEventKey = (gateway: string, eventId: string): string => `processor-event\n${gateway}\n${eventId}`;
