import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import type { DocumentClient } from '../../shared/aws/dynamodb';
import { systemClock, type Clock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { LedgerClient } from '../../shared/ledger-client/client';

/**
 * What the wallet's record readers take to read the platform's WalletTable straight from DynamoDB
 * Local (a test looking behind the API): a client, the table, a clock and ids.
 */
export const walletDeps = (platform: Platform, client: DocumentClient = localDocumentClient(platform.dynamodbEndpoint), clock: Clock = systemClock) => ({
  client,
  table: platform.tables.wallet.name,
  clock,
  ids: uuidv7,
});

/** The wallet's client of the platform's ledger API, with the wallet's own client credentials (the platform puts them in the environment). */
export const walletLedgerClient = (platform: Platform, clock: Clock = systemClock): LedgerClient =>
  new LedgerClient({ baseUrl: platform.urls.ledger, tokenUrl: process.env.LEDGER_TOKEN_URL!, clientId: process.env.LEDGER_CLIENT_ID!, clientSecret: process.env.LEDGER_CLIENT_SECRET!, clock });
