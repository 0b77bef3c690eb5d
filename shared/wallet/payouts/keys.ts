/**
 * WalletTable keys of payouts (docs/data-model.md). Each payout has a partition of its own; the
 * tenant's listing goes through gsi1 and a merchant's through gsi2, newest first by id.
 */
export const payoutKeys = {
  payout: (payoutId: string) => ({ pk: `PAYOUT#${payoutId}`, sk: 'PAYOUT' }),
  payoutIndexes: (tenantId: string, merchantId: string, payoutId: string) => ({
    gsi1pk: `TENANT#${tenantId}#PAYOUTS`,
    gsi1sk: payoutId,
    gsi2pk: `MERCHANT#${merchantId}#PAYOUTS`,
    gsi2sk: payoutId,
  }),
  tenantPayouts: (tenantId: string) => `TENANT#${tenantId}#PAYOUTS`,
  merchantPayouts: (merchantId: string) => `MERCHANT#${merchantId}#PAYOUTS`,
};

/**
 * The saga key of a rail event (shared/wallet/saga.ts). It contains line feeds, which no HTTP
 * header can carry, so no client's Idempotency-Key can collide with it.
 */
export const railEventKey = (rail: string, eventId: string): string => `payout-rail-event\n${rail}\n${eventId}`;
