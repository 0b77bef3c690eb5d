import { serviceClient, type AwsJsonClient } from './aws-json';

/**
 * Secrets Manager reads for Lambda entry points. In-VPC functions reach it through the wallet
 * stack's interface endpoint (private DNS), so the default endpoint is the right one everywhere.
 */

/** The current version of a JSON secret, parsed; a non-JSON or binary secret is a deployment error. */
export async function readJsonSecret(secretId: string, client: AwsJsonClient = serviceClient('secretsmanager')): Promise<unknown> {
  const { SecretString } = await client.call<{ SecretString?: string }>('secretsmanager.GetSecretValue', { SecretId: secretId });
  if (SecretString === undefined) throw new Error(`Secret ${secretId} has no string value`);
  try {
    return JSON.parse(SecretString) as unknown;
  } catch {
    throw new Error(`Secret ${secretId} is not JSON`);
  }
}
