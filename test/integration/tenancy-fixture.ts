import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { systemClock, type Clock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { Actor, TenancyDeps, TenancyLedger, WalletDeps } from '../../shared/wallet/deps';
import { createTenant } from '../../shared/wallet/tenancy/tenants';
import { getUserRecord, createUser } from '../../shared/wallet/tenancy/users';
import { getTenantRecord } from '../../shared/wallet/tenancy/tenants';
import { startTestPlatform } from '../support/platform';
import { walletLedgerClient } from '../support/wallet';
import { exchangeClientCredentials } from '../support/consumers';
import type { TenantRecord } from '../../shared/wallet/tenancy/records';

/**
 * Tenancy services on the embedded platform: the run's DynamoDB Local with tables of this file,
 * and the real ledger API reached through a LedgerClient with the wallet's own client credentials
 * (the platform registers the wallet as ledger consumer `wallet` and puts them in the environment).
 */
export async function tenancyFixture() {
  const platform: Platform = await startTestPlatform({ env: { LEDGER_FEED_SETTLE_MS: '0' } });
  const client = localDocumentClient(platform.dynamodbEndpoint);
  const ledger = walletLedgerClient(platform);
  const deps: TenancyDeps = { client, table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7, ledger: () => ledger };
  const staff: Actor = { kind: 'platform_staff', id: `staff-${uuidv7()}` };
  const operator: Actor = { kind: 'api_key', id: `key-${uuidv7()}` };

  /** A tenant as platform staff would provision it. */
  const tenant = async (name = `Tenant ${uuidv7().slice(-6)}`, currency = 'USD') =>
    getTenantRecord(deps, (await createTenant(deps, staff, { name, currency }, { requestId: uuidv7(), idempotencyKey: uuidv7() })).tenant.id);
  /** A user of the tenant, with its internal record (cash account id). */
  const user = async (tenantId: string, externalId = `user-${uuidv7()}`) =>
    getUserRecord(deps, tenantId, (await createUser(deps, tenantId, { external_id: externalId }, { actor: operator, requestId: uuidv7() })).user.id);

  /** The wallet consumer's ledgers whose metadata names the tenant (through the ledger API). */
  const ledgersOfTenant = async (tenantId: string): Promise<string[]> => {
    const token = await exchangeClientCredentials(platform, process.env.LEDGER_CLIENT_ID!, process.env.LEDGER_CLIENT_SECRET!);
    const found: string[] = [];
    let cursor: string | null = null;
    do {
      const response: Response = await fetch(`${platform.urls.ledger}/v1/ledgers?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
      const page = (await response.json()) as { data: { id: string; metadata: Record<string, string> }[]; next_cursor: string | null };
      found.push(...page.data.filter((l) => l.metadata.tenant_id === tenantId).map((l) => l.id));
      cursor = page.next_cursor;
    } while (cursor);
    return found;
  };

  /** Money into an account of the tenant's ledger from its funding account (a top-up unless `type` says otherwise). */
  const fund = async (tenant: TenantRecord, accountId: string, amount: number, type = 'topup') =>
    ledger.post(
      tenant.ledger_id,
      { type, legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount, commodity: tenant.currency }, { account_id: accountId, direction: 'credit', amount, commodity: tenant.currency }] },
      uuidv7(),
    );

  /** An account's balance, read from the ledger. */
  const balance = async (tenant: TenantRecord, accountId: string) => (await ledger.getAccount(tenant.ledger_id, accountId)).balance;

  /** Every transaction of the tenant's ledger (of one type when named), every page, in the order the ledger lists them. */
  const transactions = async (tenant: TenantRecord, type?: string) => {
    const all = [];
    let cursor: string | undefined;
    do {
      const page = await ledger.listTransactions(tenant.ledger_id, { cursor, limit: 100 });
      all.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return type === undefined ? all : all.filter((transaction) => transaction.type === type);
  };

  return {
    platform,
    deps,
    ledger,
    staff,
    operator,
    tenant,
    user,
    ledgersOfTenant,
    fund,
    balance,
    transactions,
    /** A service call's context: who acts (the tenant's operator unless named) and a fresh request id. */
    context: (actor: Actor = operator) => ({ actor, requestId: uuidv7() }),
    /** Every wallet service's deps on this fixture, on a clock the test moves (no token signer). */
    walletRuntime: (clock: Clock): WalletDeps => ({ ...deps, clock, signer: () => Promise.reject(new Error('no signer in these tests')), ledger: () => ledger }),
    /** The deps with another ledger client (a wrapper that fails where a test wants it to). */
    withLedger: (other: TenancyLedger): TenancyDeps => ({ ...deps, ledger: () => other }),
    stop: async () => {
      await platform.stop();
    },
  };
}

export type TenancyFixture = Awaited<ReturnType<typeof tenancyFixture>>;

/** A saga fault: the process dies after the ledger moved money, before the wallet recorded it. */
export const crashAfterLedger = {
  afterLedger: (): never => {
    throw new Error('crashed after the ledger');
  },
};
