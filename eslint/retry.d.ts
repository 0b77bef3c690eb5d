import type { Linter } from 'eslint';

/** The selectors `no-restricted-syntax` refuses everywhere (see retry.js). */
export const everywhereSyntax: { selector: string; message: string }[];
/** The selectors that keep retry loops in shared/kernel/retry.ts. */
export const retrySyntax: { selector: string; message: string }[];
/** The flat-config blocks of the retry rule (see retry.js). */
export function retryRules(): Linter.Config[];
