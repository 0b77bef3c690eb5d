/** WalletTable keys of merchants: each its own partition; a tenant's listing through gsi1, newest first by id. */
export const merchantKeys = {
  merchant: (merchantId: string) => ({ pk: `MERCHANT#${merchantId}`, sk: 'MERCHANT' }),
  tenantMerchants: (tenantId: string) => `TENANT#${tenantId}#MERCHANTS`,
};
