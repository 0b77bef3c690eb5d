import type { KMSClient } from '@aws-sdk/client-kms';
import { retryingOnce } from '../kernel/lazy';

/**
 * The KMS side of the wallet's token signer (shared/wallet/auth/tokens.ts createKmsSigner): RS256 is
 * RSASSA_PKCS1_V1_5_SHA_256 over the JWS signing input, sent RAW (KMS hashes it; RAW messages
 * may be up to 4096 bytes, far above any wallet token's header and claims).
 *
 * The SDK client (./kms-client.ts) is loaded on the first call, not at import: every wallet
 * function carries the signer, and most call KMS at most once per container (a public key).
 */

/** What a token signer needs of KMS: the port tests replace with an in-memory key. */
export interface KmsSigningPort {
  sign(keyId: string, message: Uint8Array): Promise<Uint8Array>;
  publicKey(keyId: string): Promise<Uint8Array>;
}


/** The SDK module and the container's client, loaded and built once (again after a failed load). */
const containerKms = retryingOnce(async () => {
  const sdk = await import('./kms-client');
  return { sdk, client: sdk.newKmsClient() };
});

/** Sign and GetPublicKey through `client`, the container's by default. */
export function createKmsSigningPort(client?: KMSClient): KmsSigningPort {
  const kms = async () => {
    const loaded = await containerKms();
    return { sdk: loaded.sdk, client: client ?? loaded.client };
  };
  return {
    async sign(keyId, message) {
      const { sdk, client: kmsClient } = await kms();
      const { Signature } = await kmsClient.send(new sdk.SignCommand({ KeyId: keyId, Message: message, MessageType: 'RAW', SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' }));
      if (!Signature) throw new Error(`KMS Sign returned no signature for ${keyId}`);
      return Signature;
    },
    async publicKey(keyId) {
      const { sdk, client: kmsClient } = await kms();
      const { PublicKey, KeySpec, KeyUsage } = await kmsClient.send(new sdk.GetPublicKeyCommand({ KeyId: keyId }));
      if (!PublicKey) throw new Error(`KMS GetPublicKey returned no key for ${keyId}`);
      // A key of another kind would sign nothing the verifiers accept; say so at the first read.
      if ((KeySpec && !KeySpec.startsWith('RSA_')) || (KeyUsage && KeyUsage !== 'SIGN_VERIFY')) {
        throw new Error(`KMS key ${keyId} is ${KeySpec}/${KeyUsage}; wallet tokens need an RSA SIGN_VERIFY key`);
      }
      return PublicKey;
    },
  };
}
