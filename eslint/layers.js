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
/** The manifests that join the domains: only the composition roots, scripts and tests import them. */
const DOMAIN_MANIFESTS = ['./shared/routes.ts', './shared/event-types.ts'];

/**
 * The folders of shared/wallet/, lowest first (docs/architecture.md "The wallet's domain order"):
 * each may import the root files (keys, deps, principals, ...) and the folders before it, never
 * one after it, so no two folders import each other. The root files import no folder.
 * A domain that needs the effect of one above it takes it as a parameter, composed by a module of
 * the higher one (orders/refunds.ts hands payments' refund its restock), or as an outbox event.
 * test/unit/layers.test.ts checks that this names every folder of shared/wallet/.
 */
export const WALLET_ORDER = [
  'saga',
  'money',
  'tenancy',
  'console',
  'merchants',
  'catalog',
  'auth',
  'transfers',
  'topups',
  'rewards',
  'payments',
  'orders',
  'subscriptions',
  'payouts',
  'webhooks',
  'reconciliation',
];

const walletFolder = (folder) => `./shared/wallet/${folder}`;

/** One zone per folder of the order (those above it are its forbidden `from`), and one for the root files. */
function walletZones() {
  const zones = [
    {
      target: './shared/wallet/*.ts',
      from: WALLET_ORDER.map(walletFolder),
      message: 'The root files of shared/wallet (keys, deps, principals, ...) sit below every domain folder: they import none.',
    },
  ];
  WALLET_ORDER.forEach((folder, index) => {
    const above = WALLET_ORDER.slice(index + 1);
    if (above.length === 0) return;
    zones.push({
      target: walletFolder(folder),
      from: above.map(walletFolder),
      message: `shared/wallet/${folder} imports only the wallet folders below it (the domain order in eslint/layers.js); take the effect of a higher one as a parameter or an event.`,
    });
  });
  return zones;
}

const NOT_RUNTIME = [
  './shared/kernel',
  './shared/http',
  './shared/aws',
  './shared/events',
  './shared/ledger',
  './shared/ledger-client',
  './shared/wallet',
  './shared/routes.ts',
  './shared/event-types.ts',
  './shared/workers.ts',
  './shared/tables.ts',
];
/**
 * DynamoDB commands are sent by the one store (shared/aws/store.ts) and nowhere else in shared/:
 * the document commands shared/aws/dynamodb.ts defines (and lib-dynamodb's, whose shapes they
 * take), the SDK client's own, and the clients that would send them.
 */
/**
 * Shipped code builds its schemas through shared/kernel/zod.ts (zod/mini and zod's English
 * messages): classic zod's every-method-on-every-schema weighs 100 KiB and about 8 ms of each
 * function's cold import (docs/performance.md, "Bundles and cold imports").
 */
const ZOD_PATHS = ['zod', 'zod/mini', 'zod/v4', 'zod/v4/core', 'zod/v4-mini', 'zod/v4/mini'].map((name) => ({
  name,
  message: "Import zod through shared/kernel/zod.ts (`import * as z from '…/kernel/zod'`): zod/mini with English messages, what every function carries.",
}));

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
                from: [...DOMAINS, ...DOMAIN_MANIFESTS],
                message: 'shared/events is a leaf: it imports no domain.',
              },
              {
                target: ['./shared/http', './shared/aws'],
                from: [...DOMAINS, ...DOMAIN_MANIFESTS],
                message: 'shared/http and shared/aws are layers below the domains: they import none.',
              },
              {
                target: './shared/wallet',
                from: DOMAIN_MANIFESTS,
                message: 'The manifests (shared/routes.ts, shared/event-types.ts) join the domains: no domain imports them back.',
              },
              ...walletZones(),
            ],
          },
        ],
      },
    },
    {
      files: ['shared/**/*.ts'],
      // The store sends; dynamodb.ts builds the clients and names the commands for it; kernel/zod.ts is zod.
      ignores: ['shared/aws/store.ts', 'shared/aws/dynamodb.ts', 'shared/kernel/zod.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [
              ...ZOD_PATHS,
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
            paths: ZOD_PATHS,
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
    {
      files: ['lib/**/*.ts'],
      rules: { 'no-restricted-imports': ['error', { paths: ZOD_PATHS }] },
    },
  ];
}
