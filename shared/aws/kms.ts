import { serviceClient, type AwsJsonClient } from './aws-json';

/**
 * The KMS side of the wallet's token signer (shared/wallet/auth/tokens.ts createKmsSigner): RS256 is
 * RSASSA_PKCS1_V1_5_SHA_256 over the JWS signing input, sent RAW (KMS hashes it; RAW messages
 * may be up to 4096 bytes, far above any wallet token's header and claims).
 */

/** What a token signer needs of KMS: the port tests replace with an in-memory key. */
export interface KmsSigningPort {
  sign(keyId: string, message: Uint8Array): Promise<Uint8Array>;
  publicKey(keyId: string): Promise<Uint8Array>;
}

/** Sign and GetPublicKey (TrentService, the AWS JSON 1.1 protocol; blobs are base64) through `client`, the container's by default. */
export function createKmsSigningPort(client?: AwsJsonClient): KmsSigningPort {
  const kms = () => client ?? serviceClient('kms');
  return {
    async sign(keyId, message) {
      const { Signature } = await kms().call<{ Signature?: string }>('TrentService.Sign', {
        KeyId: keyId,
        Message: Buffer.from(message).toString('base64'),
        MessageType: 'RAW',
        SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256',
      });
      if (!Signature) throw new Error(`KMS Sign returned no signature for ${keyId}`);
      return new Uint8Array(Buffer.from(Signature, 'base64'));
    },
    async publicKey(keyId) {
      const { PublicKey, KeySpec, KeyUsage } = await kms().call<{ PublicKey?: string; KeySpec?: string; KeyUsage?: string }>('TrentService.GetPublicKey', { KeyId: keyId });
      if (!PublicKey) throw new Error(`KMS GetPublicKey returned no key for ${keyId}`);
      // A key of another kind would sign nothing the verifiers accept; say so at the first read.
      if ((KeySpec && !KeySpec.startsWith('RSA_')) || (KeyUsage && KeyUsage !== 'SIGN_VERIFY')) {
        throw new Error(`KMS key ${keyId} is ${KeySpec}/${KeyUsage}; wallet tokens need an RSA SIGN_VERIFY key`);
      }
      return new Uint8Array(Buffer.from(PublicKey, 'base64'));
    },
  };
}
