import * as z from 'zod';
import { defineRoute, type Api } from './route';

/** Unauthenticated probes, served on the wallet API and on the ledger API (spec part 4 item 6). */

const health = z.object({ status: z.literal('ok') });
const version = z.object({ version: z.string(), stage: z.string() });

/**
 * Probes and documents answer from memory in microseconds: two at once per function is plenty, and
 * leaves the account's reserved-concurrency pool (./bulkheads.ts) to the routes that move money.
 */
const cheap = { function: { maxConcurrency: 2 } } as const;

const probes = (api: Api, prefix: string) => ({
  healthz:
  defineRoute({
    ...cheap,
    operationId: `${prefix}Healthz`,
    method: 'GET',
    path: '/healthz',
    api,
    handler: 'platform/healthz',
    summary: 'Liveness probe',
    tags: ['platform'],
    access: 'public',
    request: {},
    response: { status: 200, body: health, description: 'The API is up.' },
    errors: [],
    tables: {},
  }),
  version: defineRoute({
    ...cheap,
    operationId: `${prefix}Version`,
    method: 'GET',
    path: '/version',
    api,
    handler: 'platform/version',
    summary: 'Deployed version',
    tags: ['platform'],
    access: 'public',
    request: {},
    response: { status: 200, body: version, description: 'The version this API runs.' },
    errors: [],
    tables: {},
  }),
});

/** Each API serves its own OpenAPI document, generated from the manifest (spec part 9). */
const openApi = (api: Api, handler: string) =>
  defineRoute({
    ...cheap,
    operationId: `${api}OpenApi`,
    method: 'GET',
    path: '/openapi.json',
    api,
    handler,
    summary: 'OpenAPI 3.0.3 description of this API',
    tags: ['platform'],
    access: 'public',
    request: {},
    response: { status: 200, body: z.record(z.string(), z.unknown()), description: 'The OpenAPI document.' },
    errors: [],
    tables: {},
  });

const wallet = probes('wallet', 'wallet');
const ledger = probes('ledger', 'ledger');

/** Both APIs' probes share one entry point each: the schemas are the same. */
export const platformRoutes = {
  walletHealthz: wallet.healthz,
  walletVersion: wallet.version,
  ledgerHealthz: ledger.healthz,
  ledgerVersion: ledger.version,
  walletOpenApi: openApi('wallet', 'platform/openapi-wallet'),
  ledgerOpenApi: openApi('ledger', 'platform/openapi-ledger'),
  consoleOpenApi: openApi('console', 'platform/openapi-console'),
};
