/**
 * WalletTable keys of the transfers area (entity chart: docs/data-model.md). Each entity has a
 * partition of its own; listings go through the table's GSIs.
 */
export const transferKeys = {
  transfer: (transferId: string) => ({ pk: `TRANSFER#${transferId}`, sk: 'TRANSFER' }),
  /** gsi1: the tenant's transfers; gsi2: the sender's; gsi3: the receiver's; all newest first by id. */
  transferIndexes: (tenantId: string, transferId: string, fromUserId: string, toUserId: string) => ({
    gsi1pk: `TENANT#${tenantId}#TRANSFERS`,
    gsi1sk: transferId,
    gsi2pk: `USER#${fromUserId}#TRANSFERS_SENT`,
    gsi2sk: transferId,
    gsi3pk: `USER#${toUserId}#TRANSFERS_RECEIVED`,
    gsi3sk: transferId,
  }),
  tenantTransfers: (tenantId: string) => `TENANT#${tenantId}#TRANSFERS`,
  sentBy: (userId: string) => `USER#${userId}#TRANSFERS_SENT`,
  receivedBy: (userId: string) => `USER#${userId}#TRANSFERS_RECEIVED`,

  /** The tenant's tier limits. */
  tenantLimits: (tenantId: string) => ({ pk: `LIMITS#${tenantId}`, sk: 'LIMITS' }),
  /** One user's override of the tenant's limits. */
  userLimits: (userId: string) => ({ pk: `USER_LIMITS#${userId}`, sk: 'USER_LIMITS' }),
  /** The last audited credit line of a user (the ledger holds the floor itself). */
  creditLimit: (userId: string) => ({ pk: `CREDIT_LIMIT#${userId}`, sk: 'CREDIT_LIMIT' }),
};
