import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { sdkClientConfig } from './clients';

/**
 * The KMS client and the two commands the platform sends, and nothing else of
 * @aws-sdk/client-kms: ./kms.ts loads this module on first use (a dynamic import of the package
 * itself would bundle every command of it).
 */
export { GetPublicKeyCommand, KMSClient, SignCommand };

/** The container's client (./clients.ts settings). */
export const newKmsClient = (): KMSClient => new KMSClient(sdkClientConfig());
