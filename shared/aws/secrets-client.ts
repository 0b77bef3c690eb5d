import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { sdkClientConfig } from './clients';

/**
 * The Secrets Manager client and the one command the platform sends: ./secrets.ts loads this
 * module on first use (a dynamic import of the package itself would bundle every command of it).
 */
export { GetSecretValueCommand, SecretsManagerClient };

/** The container's client (./clients.ts settings). */
export const newSecretsClient = (): SecretsManagerClient => new SecretsManagerClient(sdkClientConfig());
