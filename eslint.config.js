import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerRules } from './eslint/layers.js';
import { everywhereSyntax, retryRules } from './eslint/retry.js';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'cdk.out/', '.data/', 'coverage/', 'docs/openapi/', 'client/generated/', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', ...everywhereSyntax],
    },
  },
  ...retryRules(),
  ...layerRules(import.meta.dirname),
  {
    files: ['test/**', 'bench/**'],
    rules: {
      // Tests read JSON bodies whose shape is the assertion itself.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-properties': [
        'error',
        { object: 'it', property: 'only' },
        { object: 'describe', property: 'only' },
        { object: 'test', property: 'only' },
      ],
    },
  },
);
