import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The sweeper finishes only the operations it can resume, and it can resume only those whose
 * modules its entry point imports: every `defineOperation` in shared/wallet must be among them
 * (capture, void and refunds once moved out of its sight).
 */

const WALLET = resolve(import.meta.dirname, '..', '..', 'shared', 'wallet');

/** Every `defineOperation` under `dir`, with the file that holds it. */
function definitions(dir: string): [string, string][] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return definitions(path);
    if (!entry.name.endsWith('.ts')) return [];
    return [...readFileSync(path, 'utf8').matchAll(/defineOperation\('([\w.]+)'/g)].map((match): [string, string] => [match[1]!, path]);
  });
}

const definedOperations = (dir: string): string[] => definitions(dir).map(([name]) => name);

/** The sweeper's loaders as written: operation name → the module file it imports. */
function sweeperLoaders(): [string, string][] {
  const entry = resolve(import.meta.dirname, '..', '..', 'functions', 'wallet', 'sweep-operations.ts');
  return [...readFileSync(entry, 'utf8').matchAll(/'([\w.]+)': \(\) => import\('([^']+)'\)/g)].map((match): [string, string] => [match[1]!, `${resolve(dirname(entry), match[2]!)}.ts`]);
}

describe('the saga sweeper', () => {
  it('can resume every operation the wallet defines, loading each module only when a sweep needs it', async () => {
    const saga = await import('../../shared/wallet/saga/registry');
    const before = new Set(saga.registeredOperations());
    await import('../../functions/wallet/sweep-operations');
    const defined = definedOperations(WALLET).sort();

    expect(defined.length).toBeGreaterThanOrEqual(7);
    expect(saga.loadableOperations()).toEqual(defined);
    // Loading the entry point defined nothing new: no service module ran.
    expect(saga.registeredOperations()).toEqual([...before].sort());
    // Each name's loader imports the very module that defines it, and loading defines them all.
    expect(new Map(sweeperLoaders())).toEqual(new Map(definitions(WALLET)));
    for (const name of defined) expect(await saga.operationDefinition(name), name).toBeTypeOf('function');
    expect(saga.registeredOperations()).toEqual(defined);
  });
});
