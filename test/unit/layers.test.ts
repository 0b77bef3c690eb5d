import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { layerRules, WALLET_ORDER } from '../../eslint/layers.js';

/**
 * The layer rules fail on what they forbid: a fixture tree (test/fixtures/layers, a small shared/)
 * holds one file that breaks each rule, and clean files that must pass.
 */

const root = resolve(import.meta.dirname, '..', 'fixtures', 'layers');
let messages: Map<string, string[]>;

beforeAll(async () => {
  const tseslint = (await import('typescript-eslint')).default;
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layerRules(root)],
  });
  const results = await eslint.lintFiles(['shared/**/*.ts']);
  messages = new Map(results.map((result) => [result.filePath.slice(root.length + 1), result.messages.map((m) => `${m.ruleId}: ${m.message}`)]));
});

const of = (file: string) => messages.get(join('shared', file)) ?? [];

describe('the layer rules', () => {
  it.each([
    ['kernel/reaches-up.ts', 'import-x/no-restricted-paths', 'kernel imports nothing of ours'],
    ['http/knows-a-domain.ts', 'import-x/no-restricted-paths', 'import none'],
    ['events/outbox.ts', 'import-x/no-restricted-paths', 'leaf'],
    ['ledger/asks-the-wallet.ts', 'import-x/no-restricted-paths', 'never imports the wallet'],
    ['wallet/around-the-client.ts', 'import-x/no-restricted-paths', 'only through shared/ledger-client'],
    ['wallet/uses-the-root.ts', 'import-x/no-restricted-paths', 'composition roots'],
    ['wallet/own-store.ts', 'no-restricted-imports', 'shared/aws/store.ts'],
    ['wallet/raw-client.ts', 'no-restricted-imports', 'shared/aws/store.ts'],
    ['aws/sends-its-own.ts', 'no-restricted-imports', 'shared/aws/store.ts'],
    ['wallet/cycle-a.ts', 'import-x/no-cycle', 'cycle'],
    ['wallet/cycle-b.ts', 'import-x/no-cycle', 'cycle'],
    ['wallet/payments/refunds.ts', 'import-x/no-restricted-paths', 'imports only the wallet folders below it'],
    ['wallet/deps.ts', 'import-x/no-restricted-paths', 'they import none'],
    ['wallet/webhooks/payloads.ts', 'import-x/no-restricted-paths', 'no domain imports them back'],
  ])('refuse %s (%s)', (file, rule, says) => {
    expect(of(file).some((message) => message.startsWith(`${rule}:`) && message.includes(says)), of(file).join('\n')).toBe(true);
  });

  it.each([
    'kernel/clock.ts',
    'http/respond.ts',
    'aws/store.ts',
    'ledger/postings.ts',
    'ledger-client/client.ts',
    'wallet/balances.ts',
    'wallet/orders/stock.ts',
    'wallet/payments/fees.ts',
    'event-types.ts',
    'runtime/wallet.ts',
  ])(
    'pass the clean %s',
    (file) => {
      expect(messages.has(join('shared', file))).toBe(true);
      expect(of(file)).toEqual([]);
    },
  );

  it('order every folder of shared/wallet, each once', () => {
    const folders = readdirSync(resolve(import.meta.dirname, '..', '..', 'shared', 'wallet'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect([...WALLET_ORDER].sort()).toEqual(folders.sort());
    expect(new Set(WALLET_ORDER).size).toBe(WALLET_ORDER.length);
  });
});
