import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../shared/kernel/clock';
import { loadOrCreateSigningKeys, rotateStoredSigningKeys, signingKeysFile } from '../../local/signing-keys';
import {
  createKmsSigner,
  createLocalSigner,
  kmsKid,
  loadTokenSigner,
  mintWalletToken,
  parseSigningKeys,
  verifyWalletToken,
} from '../../shared/wallet/auth/tokens';
import type { KmsSigningPort } from '../../shared/aws/kms';

/** Signing keys: the local key file and its rotation, and the KMS signer against a stand-in KMS. */

const dataDir = mkdtempSync(join(tmpdir(), 'wallet-keys-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('local signing keys', () => {
  it('generates the keys once into an owner-only file and reads them back', async () => {
    const first = await loadOrCreateSigningKeys(dataDir);
    const again = await loadOrCreateSigningKeys(dataDir);

    expect(again.current.kid).toBe(first.current.kid);
    expect(first.current).toMatchObject({ kty: 'RSA', alg: 'RS256', d: expect.any(String) });
    expect(statSync(signingKeysFile(dataDir)).mode & 0o777).toBe(0o600);
  });

  it('rotates: the current key becomes the previous one', async () => {
    const before = await loadOrCreateSigningKeys(dataDir);

    const after = await rotateStoredSigningKeys(dataDir);

    expect(after.previous?.kid).toBe(before.current.kid);
    expect(after.current.kid).not.toBe(before.current.kid);
    expect((await loadOrCreateSigningKeys(dataDir)).current.kid).toBe(after.current.kid);
  });

  it('makes fresh keys in memory without a data directory', async () => {
    const [a, b] = [await loadOrCreateSigningKeys(), await loadOrCreateSigningKeys()];

    expect(a.current.kid).not.toBe(b.current.kid);
  });

  it('refuses WALLET_SIGNING_KEYS that are not RSA private JWKs', async () => {
    const keys = await loadOrCreateSigningKeys();
    const { d: _d, ...publicOnly } = keys.current;

    expect(() => parseSigningKeys('nope')).toThrow(/not JSON/);
    expect(() => parseSigningKeys(JSON.stringify({ current: publicOnly }))).toThrow(/RSA private JWK/);
    expect(parseSigningKeys(JSON.stringify(keys)).current.kid).toBe(keys.current.kid);
  });

  it('answers service_unavailable when no signing key is configured', async () => {
    await expect(loadTokenSigner()).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});

describe('KMS signer', () => {
  /** A stand-in for KMS: RSASSA_PKCS1_V1_5_SHA_256 over the raw message, public keys as DER SPKI. */
  function fakeKms(): KmsSigningPort & { keys: Map<string, { privateKey: KeyObject; publicKey: KeyObject }>; signCalls: number } {
    const keys = new Map<string, { privateKey: KeyObject; publicKey: KeyObject }>();
    const keyOf = (id: string) => {
      let pair = keys.get(id);
      if (!pair) {
        pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
        keys.set(id, pair);
      }
      return pair;
    };
    const port = {
      keys,
      signCalls: 0,
      async sign(keyId: string, message: Uint8Array) {
        port.signCalls += 1;
        return createSign('RSA-SHA256').update(message).sign(keyOf(keyId).privateKey);
      },
      async publicKey(keyId: string) {
        return keyOf(keyId).publicKey.export({ format: 'der', type: 'spki' });
      },
    };
    return port;
  }

  it('signs RS256 tokens that verify against its published keys, current and previous', async () => {
    const kms = fakeKms();
    const current = 'arn:aws:kms:us-east-1:111122223333:key/current';
    const previous = 'arn:aws:kms:us-east-1:111122223333:key/previous';
    const signer = createKmsSigner({ kms, keyId: current, previousKeyId: previous });
    const oldSigner = createKmsSigner({ kms, keyId: previous });

    const { token } = await mintWalletToken(signer, { use: 'staff', subject: 'staff-1', scopes: ['platform:read'], ttlSeconds: 900, claims: { role: 'platform' } });
    const { token: oldToken } = await mintWalletToken(oldSigner, { use: 'staff', subject: 'staff-2', scopes: [], ttlSeconds: 900, claims: { role: 'platform' } });

    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'RS256', kid: kmsKid(current), typ: 'JWT' });
    expect((await signer.jwks()).keys.map((key) => key.kid)).toEqual([kmsKid(current), kmsKid(previous)]);
    await expect(verifyWalletToken(token, 'staff', { signer })).resolves.toMatchObject({ sub: 'staff-1', role: 'platform', scopes: ['platform:read'] });
    await expect(verifyWalletToken(oldToken, 'staff', { signer })).resolves.toMatchObject({ sub: 'staff-2' });
    await expect(verifyWalletToken(token, 'user', { signer })).rejects.toMatchObject({ code: 'unauthenticated', reason: 'token_use is staff' });
  });

  it('never publishes a key id that reveals the KMS key', () => {
    expect(kmsKid('arn:aws:kms:us-east-1:111122223333:key/abc')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('agrees with the local signer on the token format', async () => {
    const local = await createLocalSigner((await loadOrCreateSigningKeys()));
    const { token } = await mintWalletToken(local, { use: 'user', subject: 'u', scopes: ['balances:read'], ttlSeconds: 60, claims: { tenant_id: 't' } });

    await expect(verifyWalletToken(token, ['user', 'staff'], { signer: local })).resolves.toMatchObject({ token_use: 'user', tenant_id: 't' });
  });
});

describe('verifying wallet tokens', () => {
  it("checks a token's signature once a minute, its use on every call, and refuses it once expired", async () => {
    const clock = new ManualClock('2026-05-01T00:00:00Z');
    const signer = await createLocalSigner(await loadOrCreateSigningKeys());
    const { token } = await mintWalletToken(signer, { use: 'user', subject: 'u-1', scopes: ['balances:read'], ttlSeconds: 120, claims: { tenant_id: 't' }, clock });
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    try {
      for (let i = 0; i < 3; i += 1) await expect(verifyWalletToken(token, 'user', { signer, clock })).resolves.toMatchObject({ sub: 'u-1' });
      expect(verify).toHaveBeenCalledTimes(1);
      // Remembered or not, a token is admitted only for its use.
      await expect(verifyWalletToken(token, 'staff', { signer, clock })).rejects.toMatchObject({ code: 'unauthenticated', reason: 'token_use is user' });
      // A forged signature over the same claims is verified, and refused.
      const forged = `${token.slice(0, token.lastIndexOf('.'))}.${Buffer.from('forged').toString('base64url')}`;
      await expect(verifyWalletToken(forged, 'user', { signer, clock })).rejects.toMatchObject({ code: 'unauthenticated' });
      clock.advance(61_000);
      await verifyWalletToken(token, 'user', { signer, clock });
      expect(verify).toHaveBeenCalledTimes(3);
      // A short-lived token is refused past its exp and the 30 s leeway, though verified within the minute.
      const short = (await mintWalletToken(signer, { use: 'user', subject: 'u-2', scopes: [], ttlSeconds: 10, claims: { tenant_id: 't' }, clock })).token;
      await expect(verifyWalletToken(short, 'user', { signer, clock })).resolves.toMatchObject({ sub: 'u-2' });
      clock.advance(41_000);
      await expect(verifyWalletToken(short, 'user', { signer, clock })).rejects.toMatchObject({ code: 'unauthenticated', message: 'The token has expired.' });
    } finally {
      verify.mockRestore();
    }
  });
});
