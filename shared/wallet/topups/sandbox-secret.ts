import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The embedded platform's SANDBOX_PROCESSOR_SECRET: generated once into
 * <dataDir>/keys/sandbox-processor.secret (mode 0600; .data/ is git-ignored) so it survives
 * restarts, or random per run without a data directory (tests). Never used in AWS, where the
 * stack sets the variable.
 */
export function loadOrCreateSandboxSecret(dataDir?: string): string {
  if (!dataDir) return randomBytes(32).toString('hex');
  const file = join(dataDir, 'keys', 'sandbox-processor.secret');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(stored)) return stored;
  }
  const secret = randomBytes(32).toString('hex');
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
