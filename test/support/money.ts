import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { walletDeps, walletLedgerClient } from './wallet';

/**
 * Money for a test's user, the way the platform's own funding works: a ledger posting from the
 * tenant's funding account to the user's cash account, through the ledger API with the wallet's
 * client credentials.
 */
export async function fundUser(platform: Platform, tenantId: string, userId: string, amount: number): Promise<void> {
  const { getTenantRecord } = await import('../../shared/wallet/tenancy/tenants');
  const { getUserRecord } = await import('../../shared/wallet/tenancy/users');
  const deps = walletDeps(platform);
  const tenant = await getTenantRecord(deps, tenantId);
  const cash = (await getUserRecord(deps, tenantId, userId)).cash_account_id;
  const ledger = walletLedgerClient(platform);
  await ledger.post(tenant.ledger_id, { type: 'topup', legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount, commodity: 'USD' }, { account_id: cash, direction: 'credit', amount, commodity: 'USD' }] }, uuidv7());
}
