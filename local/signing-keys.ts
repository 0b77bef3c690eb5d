import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { LocalStartError } from './errors';
import { dataDirFromEnv } from './data-dir';

/**
 * The wallet's token signing keys on a laptop (in AWS a KMS key signs; shared/wallet/auth/tokens.ts).
 * Generated once into <dataDir>/keys/wallet-signing.json (mode 0600, .data/ is git-ignored), or in
 * memory without a data directory (tests). The file holds `{current, previous?}` RSA private JWKs,
 * exactly what WALLET_SIGNING_KEYS carries. Rotation makes the current key the previous one and
 * generates a new current key; verifiers accept both until the next rotation.
 *
 *   npx tsx local/signing-keys.ts rotate     (then restart npm start)
 */

export interface WalletSigningKeys {
  current: JWK;
  previous?: JWK;
}

const ALG = 'RS256';

export const signingKeysFile = (dataDir: string): string => join(dataDir, 'keys', 'wallet-signing.json');

/** A new RSA 2048 private JWK with its thumbprint as kid. */
export async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n, e: jwk.e });
  return { ...jwk, kid, alg: ALG, use: 'sig' };
}

/** The current key becomes the previous one; the one before that is dropped. */
export async function rotateKeys(keys: WalletSigningKeys): Promise<WalletSigningKeys> {
  return { current: await generateSigningKey(), previous: keys.current };
}

/** The keys in the data directory, generated on first start; in memory without one. */
export async function loadOrCreateSigningKeys(dataDir?: string): Promise<WalletSigningKeys> {
  if (!dataDir) return { current: await generateSigningKey() };
  const file = signingKeysFile(dataDir);
  if (existsSync(file)) return readKeys(file);
  const keys = { current: await generateSigningKey() };
  writePrivate(file, JSON.stringify(keys, null, 2));
  return keys;
}

/** Rotates the keys stored in the data directory; the running platform picks them up on restart. */
export async function rotateStoredSigningKeys(dataDir: string): Promise<WalletSigningKeys> {
  const file = signingKeysFile(dataDir);
  const keys = await rotateKeys(existsSync(file) ? readKeys(file) : { current: await generateSigningKey() });
  writePrivate(file, JSON.stringify(keys, null, 2));
  return keys;
}

function readKeys(file: string): WalletSigningKeys {
  const keys = JSON.parse(readFileSync(file, 'utf8')) as WalletSigningKeys;
  const valid = (jwk: JWK | undefined) => !!jwk && jwk.kty === 'RSA' && typeof jwk.d === 'string' && typeof jwk.kid === 'string';
  if (!valid(keys.current) || (keys.previous !== undefined && !valid(keys.previous))) {
    throw new LocalStartError(`${file} does not hold RSA private JWKs; delete it to generate new signing keys.`);
  }
  return keys;
}

/** Written whole (temp file, then rename) and readable by the owner only. */
function writePrivate(file: string, content: string): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const dataDir = dataDirFromEnv();
  const usage = 'usage: npm run dev:rotate-signing-key   (rotates the wallet token signing key in <DATA_DIR or .data>/keys; restart the platform after)\n';
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usage);
    process.exit(0);
  }
  if (args.length !== 1 || args[0] !== 'rotate') {
    process.stderr.write(usage);
    process.exit(2);
  }
  const keys = await rotateStoredSigningKeys(dataDir);
  process.stdout.write(`${JSON.stringify({ current_kid: keys.current.kid, previous_kid: keys.previous?.kid ?? null })}\n`);
  process.stderr.write('Restart the platform (npm start) to sign with the new key.\n');
}
