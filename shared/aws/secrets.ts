import { config } from '../kernel/config';
import { AwsJsonClient } from './aws-json';

/**
 * Secrets Manager reads for Lambda entry points. In-VPC functions reach it through the wallet
 * stack's interface endpoint (private DNS), so the default endpoint is the right one everywhere.
 */

let defaultClient: AwsJsonClient | undefined;

/** One client per container, created on first use. */
export function secretsClient(): AwsJsonClient {
  return (defaultClient ??= new AwsJsonClient({ service: 'secretsmanager', region: config.AWS_REGION, maxAttempts: 3 }));
}

/** The current version of a JSON secret, parsed; a non-JSON or binary secret is a deployment error. */
export async function readJsonSecret(secretId: string, client: AwsJsonClient = secretsClient()): Promise<unknown> {
  const { SecretString } = await client.call<{ SecretString?: string }>('secretsmanager.GetSecretValue', { SecretId: secretId });
  if (SecretString === undefined) throw new Error(`Secret ${secretId} has no string value`);
  try {
    return JSON.parse(SecretString) as unknown;
  } catch {
    throw new Error(`Secret ${secretId} is not JSON`);
  }
}
