import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { retryingOnce } from '../kernel/lazy';

/**
 * Secrets Manager reads for Lambda entry points. In-VPC functions reach it through the wallet
 * stack's interface endpoint (private DNS), so the default endpoint is the right one everywhere.
 * The SDK client (./secrets-client.ts) is loaded on the first read (the ledger client's
 * credentials, once per container), not at import.
 */

/** The SDK module and the container's client, loaded and built once (again after a failed load). */
const containerSecrets = retryingOnce(async () => {
  const sdk = await import('./secrets-client');
  return { sdk, client: sdk.newSecretsClient() };
});

/** The current version of a JSON secret, parsed; a non-JSON or binary secret is a deployment error. */
export async function readJsonSecret(secretId: string, client?: SecretsManagerClient): Promise<unknown> {
  const loaded = await containerSecrets();
  const { SecretString } = await (client ?? loaded.client).send(new loaded.sdk.GetSecretValueCommand({ SecretId: secretId }));
  if (SecretString === undefined) throw new Error(`Secret ${secretId} has no string value`);
  try {
    return JSON.parse(SecretString) as unknown;
  } catch {
    throw new Error(`Secret ${secretId} is not JSON`);
  }
}
