/**
 * One module loops on failure: shared/kernel/retry.ts (docs/architecture.md). Elsewhere in
 * shared/ and functions/, a promise around `setTimeout(resolve, ms)` (a sleep helper) or a `for`
 * loop counting attempts is refused: a retry calls `retrying` with a policy of that module.
 * The selectors are kept with the rule that already restricts syntax everywhere (parseFloat), since
 * a later `no-restricted-syntax` setting replaces an earlier one.
 */
export const everywhereSyntax = [{ selector: "CallExpression[callee.name='parseFloat']", message: 'Amounts are integer minor units.' }];

export const retrySyntax = [
  {
    selector: "NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier']",
    message: 'A sleep outside shared/kernel/retry.ts: retry through `retrying` and a policy of that module.',
  },
  {
    selector: 'ForStatement > VariableDeclaration > VariableDeclarator[id.name=/^(attempt|try|tries|retry|retries)s?$/i]',
    message: 'A retry loop outside shared/kernel/retry.ts: call `retrying` with a policy of that module.',
  },
];

/** The flat-config blocks: the retry selectors in shared/ and functions/, but not in the policy itself. */
export function retryRules() {
  return [
    {
      files: ['shared/**/*.ts', 'functions/**/*.ts'],
      ignores: ['shared/kernel/retry.ts'],
      rules: { 'no-restricted-syntax': ['error', ...everywhereSyntax, ...retrySyntax] },
    },
  ];
}
