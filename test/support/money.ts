import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { systemClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { LedgerClient } from '../../shared/ledger-client/client';

/**
 * Money for a test's user, the way the platform's own funding works: a ledger posting from the
 * tenant's funding account to the user's cash account, through the ledger API with the wallet's
 * client credentials.
 */
export async function fundUser(platform: Platform, tenantId: string, userId: string, amount: number): Promise<void> {
  const { getTenantRecord } = await import('../../shared/wallet/tenancy/tenants');
  const { getUserRecord } = await import('../../shared/wallet/tenancy/users');
  const deps = { client: localDocumentClient(platform.dynamodbEndpoint), table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7 };
  const tenant = await getTenantRecord(deps, tenantId);
  const cash = (await getUserRecord(deps, tenantId, userId)).cash_account_id;
  const ledger = new LedgerClient({ baseUrl: platform.urls.ledger, tokenUrl: process.env.LEDGER_TOKEN_URL!, clientId: process.env.LEDGER_CLIENT_ID!, clientSecret: process.env.LEDGER_CLIENT_SECRET!, clock: systemClock });
  await ledger.post(tenant.ledger_id, { type: 'topup', legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount, commodity: 'USD' }, { account_id: cash, direction: 'credit', amount, commodity: 'USD' }] }, uuidv7());
}
