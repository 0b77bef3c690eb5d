import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { systemClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { createConsumerStore } from '../../shared/ledger/consumers';

/**
 * A ledger consumer as an operator and its deployment would set one up: the operator registers it
 * in LedgerTable (never through the API), and the consumer gets its token from the issuer with a
 * real client_credentials exchange.
 */
export async function ledgerConsumer(platform: Platform, name = `consumer-${uuidv7().slice(-8)}`): Promise<{ name: string; token: string; consumerId: string }> {
  const store = createConsumerStore(localDocumentClient(platform.dynamodbEndpoint), platform.tables.ledger.name, systemClock, uuidv7);
  const { consumer } = await store.ensureConsumer({ name, sub: name });
  return { name, token: await clientCredentialsToken(platform, name), consumerId: consumer.id };
}

/** A new client of the issuer, registered now, and the token it gets with its credentials. */
export async function clientCredentialsToken(platform: Platform, clientId: string): Promise<string> {
  const { client_secret } = platform.issuer.registerClient(clientId);
  return exchangeClientCredentials(platform, clientId, client_secret);
}

/** A client_credentials exchange at the platform's issuer (HTTP Basic client authentication): the access token. */
export async function exchangeClientCredentials(platform: Platform, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(platform.issuer.tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  if (!response.ok) throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
