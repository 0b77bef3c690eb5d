import { spreadCollection } from '../../aws/merged-pages';

/**
 * WalletTable keys of the transfers area (entity chart: docs/data-model.md). A transfer is an
 * item of its tenant's transfers, in the partition its id picks: the tenant's listing reads the
 * table itself (no index entry to write per transfer), and 16 partitions take a tenant's
 * transfers at 16 times one partition's write rate. A user's listings go through the GSIs.
 */
export const TRANSFER_PARTITIONS = 16;

export const transferKeys = {
  tenantTransfers: (tenantId: string) => spreadCollection(`TRANSFERS#${tenantId}`, TRANSFER_PARTITIONS),
  transfer: (tenantId: string, transferId: string) => transferKeys.tenantTransfers(tenantId).key(transferId),
  /** Where a transfer written before the tenant's partitions lives (read by id only). */
  legacy: (transferId: string) => ({ pk: `TRANSFER#${transferId}`, sk: 'TRANSFER' }),
  /** gsi2: the sender's transfers; gsi3: the receiver's; newest first by id. */
  userIndexes: (transferId: string, fromUserId: string, toUserId: string) => ({
    gsi2pk: `USER#${fromUserId}#TRANSFERS_SENT`,
    gsi2sk: transferId,
    gsi3pk: `USER#${toUserId}#TRANSFERS_RECEIVED`,
    gsi3sk: transferId,
  }),
  sentBy: (userId: string) => `USER#${userId}#TRANSFERS_SENT`,
  receivedBy: (userId: string) => `USER#${userId}#TRANSFERS_RECEIVED`,

  /** The tenant's tier limits. */
  tenantLimits: (tenantId: string) => ({ pk: `LIMITS#${tenantId}`, sk: 'LIMITS' }),
  /** One user's override of the tenant's limits. */
  userLimits: (userId: string) => ({ pk: `USER_LIMITS#${userId}`, sk: 'USER_LIMITS' }),
  /** The last audited credit line of a user (the ledger holds the floor itself). */
  creditLimit: (userId: string) => ({ pk: `CREDIT_LIMIT#${userId}`, sk: 'CREDIT_LIMIT' }),
};
