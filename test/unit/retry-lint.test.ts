import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { retryRules } from '../../eslint/retry.js';

/** Retry loops stay in shared/kernel/retry.ts: the lint rule (eslint/retry.js) refuses one anywhere else in shared/ and functions/. */

let eslint: ESLint;
beforeAll(async () => {
  const tseslint = (await import('typescript-eslint')).default;
  eslint = new ESLint({ overrideConfigFile: true, overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...retryRules()] });
});

const problems = async (filePath: string, code: string) => (await eslint.lintText(code, { filePath })).flatMap((result) => result.messages.map((m) => m.message));

const sleepHelper = 'export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));\n';
const attemptLoop = 'export async function again(f: () => Promise<void>) {\n  for (let attempt = 1; attempt <= 5; attempt += 1) {\n    try { return await f(); } catch { /* again */ }\n  }\n}\n';

describe('the retry rule', () => {
  it.each([
    ['shared/wallet/catalog/own-sleep.ts', sleepHelper, 'A sleep outside shared/kernel/retry.ts'],
    ['shared/aws/own-loop.ts', attemptLoop, 'A retry loop outside shared/kernel/retry.ts'],
    ['functions/webhooks/own-loop.ts', attemptLoop, 'A retry loop outside shared/kernel/retry.ts'],
  ])('refuses %s', async (file, code, says) => {
    expect((await problems(file, code)).join('\n')).toContain(says);
  });

  it('lets the policy module loop, and a timer that is not a sleep pass', async () => {
    expect(await problems('shared/kernel/retry.ts', sleepHelper + attemptLoop)).toEqual([]);
    expect(await problems('shared/wallet/timer.ts', 'export const t = setTimeout(() => undefined, 5);\n')).toEqual([]);
  });
});
