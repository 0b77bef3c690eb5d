import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * The layer rules of shared/ (docs/architecture.md), as lint: each zone says what a folder may not
 * import, by resolved path. `npm test` runs lint, so a change that breaks a layer fails the suite;
 * test/unit/layers.test.ts lints a fixture that breaks each rule.
 *
 * `root` is the folder that holds shared/ (the repository, or the fixture).
 */

const DOMAINS = ['./shared/wallet', './shared/ledger', './shared/ledger-client', './shared/runtime'];
const NOT_RUNTIME = [
  './shared/kernel',
  './shared/http',
  './shared/aws',
  './shared/events',
  './shared/ledger',
  './shared/ledger-client',
  './shared/wallet',
  './shared/routes.ts',
  './shared/workers.ts',
  './shared/tables.ts',
];
/**
 * DynamoDB commands are sent by the one store (shared/aws/store.ts) and nowhere else in shared/:
 * lib-dynamodb's document commands (which shared/aws/dynamodb.ts re-exports) and the SDK client's
 * own, and the clients that would send them.
 */
const DYNAMODB_CLIENT_COMMANDS = [
  'DynamoDBClient',
  'GetItemCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
  'TransactGetItemsCommand',
  'ExecuteStatementCommand',
  'ExecuteTransactionCommand',
  'BatchExecuteStatementCommand',
];
const DYNAMODB_COMMANDS = [
  'DynamoDBDocumentClient',
  'GetCommand',
  'PutCommand',
  'UpdateCommand',
  'DeleteCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetCommand',
  'BatchWriteCommand',
  'TransactWriteCommand',
  'TransactGetCommand',
];

export function layerRules(root) {
  return [
    {
      files: ['**/*.ts'],
      plugins: { 'import-x': importX },
      settings: {
        // The cycle rule parses each imported file itself: it needs to be told the parser for .ts.
        'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
        'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true })],
      },
      rules: {
        'import-x/no-cycle': ['error', { ignoreExternal: true }],
        'import-x/no-restricted-paths': [
          'error',
          {
            basePath: root,
            zones: [
              {
                target: './client',
                from: ['./shared', './functions', './local', './lib', './scripts', './bench', './bin', './test'],
                message: 'client/ is the typed client integrators copy: it imports nothing of the platform.',
              },
              {
                target: './shared/kernel',
                from: ['./shared', './functions', './local', './lib', './scripts', './bench', './bin'],
                except: ['./kernel'],
                message: 'shared/kernel imports nothing of ours.',
              },
              {
                target: './shared/ledger',
                from: ['./shared/wallet', './shared/ledger-client', './shared/runtime'],
                message: 'The ledger is its own bounded context: it never imports the wallet, its client or a composition root.',
              },
              {
                target: './shared/wallet',
                from: './shared/ledger',
                message: 'The wallet reaches the ledger only through shared/ledger-client (its HTTP contract).',
              },
              {
                target: NOT_RUNTIME,
                from: './shared/runtime',
                message: 'Only functions/, local/, scripts, benchmarks and tests import the composition roots in shared/runtime.',
              },
              {
                target: './shared/events',
                from: DOMAINS,
                message: 'shared/events is a leaf: it imports no domain.',
              },
              {
                target: ['./shared/http', './shared/aws'],
                from: [...DOMAINS, './shared/routes.ts'],
                message: 'shared/http and shared/aws are layers below the domains: they import none.',
              },
            ],
          },
        ],
      },
    },
    {
      files: ['shared/**/*.ts'],
      // The store sends; dynamodb.ts builds the clients and names the commands for it.
      ignores: ['shared/aws/store.ts', 'shared/aws/dynamodb.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [
              {
                name: '@aws-sdk/client-dynamodb',
                importNames: DYNAMODB_CLIENT_COMMANDS,
                allowTypeImports: true,
                message: 'Read and write through shared/aws/store.ts: one retry policy, one paging, one decoding of cancellations.',
              },
              {
                name: '@aws-sdk/lib-dynamodb',
                importNames: DYNAMODB_COMMANDS,
                allowTypeImports: true,
                message: 'Read and write through shared/aws/store.ts: one retry policy, one paging, one decoding of cancellations.',
              },
            ],
            patterns: [
              {
                group: ['**/aws/dynamodb', './dynamodb'],
                importNames: DYNAMODB_COMMANDS,
                allowTypeImports: true,
                message: 'Read and write through shared/aws/store.ts: one retry policy, one paging, one decoding of cancellations.',
              },
            ],
          },
        ],
      },
    },
    {
      files: ['functions/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: ['**/routes', '**/*-routes', '**/routes.ts'],
                allowTypeImports: true,
                message:
                  'A function names its route by a loader, `async () => (await import(...)).xRoutes.op`: the area\'s manifest and its zod schemas load on the first request, not at import (docs/performance.md).',
              },
            ],
          },
        ],
      },
    },
  ];
}
