import { z } from 'zod';
import { defineRoute, type Api } from '../http/route';

/** Unauthenticated probes, served on the wallet API and on the ledger API (spec part 4 item 6). */

const health = z.object({ status: z.literal('ok') });
const version = z.object({ version: z.string(), stage: z.string() });

const probes = (api: Api, prefix: string) => ({
  healthz:
  defineRoute({
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

const wallet = probes('wallet', 'wallet');
const ledger = probes('ledger', 'ledger');

/** Both APIs' probes share one entry point each: the schemas are the same. */
export const platformRoutes = {
  walletHealthz: wallet.healthz,
  walletVersion: wallet.version,
  ledgerHealthz: ledger.healthz,
  ledgerVersion: ledger.version,
};
