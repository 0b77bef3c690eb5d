import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The sweeper finishes only the operations it can resume, and it can resume only those whose
 * modules its entry point imports: every `defineOperation` in shared/wallet must be among them
 * (capture, void and refunds once moved out of its sight).
 */

const WALLET = resolve(import.meta.dirname, '..', '..', 'shared', 'wallet');

function definedOperations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return definedOperations(path);
    if (!entry.name.endsWith('.ts')) return [];
    return [...readFileSync(path, 'utf8').matchAll(/defineOperation\('([\w.]+)'/g)].map((match) => match[1]!);
  });
}

describe('the saga sweeper', () => {
  it('can resume every operation the wallet defines', async () => {
    await import('../../functions/wallet/sweep-operations');
    const { registeredOperations } = await import('../../shared/wallet/saga');
    const defined = definedOperations(WALLET).sort();

    expect(defined.length).toBeGreaterThanOrEqual(7);
    expect(registeredOperations()).toEqual(defined);
  });
});
