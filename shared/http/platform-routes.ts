import * as z from '../kernel/zod';
import { DOCS_RENDERER_FILE } from './docs-page';
import { DASHBOARD_SCRIPT_FILE } from './dashboard-page';
import { CREDENTIAL_KINDS } from './answers';
import { defineRoute, type Api } from './route';

/** Unauthenticated probes, served on the wallet API and on the ledger API (spec part 4 item 6). */

const health = z.object({ status: z.literal('ok') });
const version = z.object({ version: z.string(), stage: z.string() });

/** Every credential the wallet API admits. */
const WALLET_CALLERS = CREDENTIAL_KINDS.wallet;

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
    handler: api === 'ledger' ? 'platform/version' : 'platform/wallet-version',
    summary: 'Deployed version',
    tags: ['platform'],
    // The spec exempts only /healthz from credentials on the wallet API; the ledger's probes are both open.
    access: api === 'ledger' ? 'public' : { principals: WALLET_CALLERS, scopes: [], boundKeys: true },
    request: {},
    response: { status: 200, body: version, description: 'The version this API runs.' },
    errors: [],
    // RO: the credential hook reads; what it records goes through queues (credential-queues.ts).
    tables: api === 'ledger' ? {} : { wallet: 'RO' },
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

/**
 * A page for people: one request at a time per function is enough (the renderer is cached by the
 * browser for a day), and keeps the reserved-concurrency pool for the API itself.
 */
const forPeople = { function: { maxConcurrency: 1 } } as const;

/**
 * `GET /docs`: the API reference a person opens in a browser, rendered from this API's own
 * `/openapi.json` by Redoc, and `GET /docs/redoc.standalone.js`, the renderer it loads. Everything
 * comes from this API: no CDN, no font service, nothing remote. The page and the renderer each
 * serve every API from one entry point; the renderer (about 1 MB) ships as a file beside the
 * function's bundle, never inside it (HANDLER_FILES in scripts/bundle.ts).
 */
const docs = (api: Api) => ({
  page: defineRoute({
    ...forPeople,
    operationId: `${api}Docs`,
    method: 'GET',
    path: '/docs',
    api,
    handler: 'platform/docs',
    summary: 'API reference of this API, for a browser (HTML)',
    tags: ['platform'],
    access: 'public',
    request: {},
    response: { status: 200, body: z.string(), contentType: 'text/html', description: "An HTML page rendering this API's OpenAPI document." },
    errors: [],
    tables: {},
  }),
  renderer: defineRoute({
    ...forPeople,
    operationId: `${api}DocsRenderer`,
    method: 'GET',
    path: `/docs/${DOCS_RENDERER_FILE}`,
    api,
    handler: 'platform/docs-renderer',
    summary: 'The script that renders the API reference page (Redoc)',
    tags: ['platform'],
    access: 'public',
    request: {},
    response: { status: 200, body: z.string(), contentType: 'text/javascript', description: "Redoc's standalone bundle." },
    errors: [],
    tables: {},
  }),
});

/**
 * `GET /dashboard` on the console API only (operators; never on the public gateway): the page
 * people sign in to with a staff session, and `GET /dashboard/app.js`, the single-page app it
 * loads (built by esbuild from dashboard/app/, shipped beside the function's bundle). The app
 * reads through the APIs' own routes with the session's token, so it sees exactly what the
 * session may read (./dashboard-page.ts).
 */
const dashboard = {
  page: defineRoute({
    ...forPeople,
    operationId: 'consoleDashboard',
    method: 'GET',
    path: '/dashboard',
    api: 'console',
    handler: 'platform/dashboard',
    summary: 'The operators\' dashboard, for a browser (HTML): sign in with a staff session',
    tags: ['platform'],
    access: 'public',
    request: {},
    response: { status: 200, body: z.string(), contentType: 'text/html', description: 'An HTML page that loads the dashboard app.' },
    errors: [],
    tables: {},
  }),
  app: defineRoute({
    ...forPeople,
    operationId: 'consoleDashboardApp',
    method: 'GET',
    path: `/dashboard/${DASHBOARD_SCRIPT_FILE}`,
    api: 'console',
    handler: 'platform/dashboard-app',
    summary: 'The dashboard\'s single-page app (JavaScript)',
    tags: ['platform'],
    access: 'public',
    request: {},
    response: { status: 200, body: z.string(), contentType: 'text/javascript', description: 'The app, built from dashboard/app/ (Preact and Chart.js).' },
    errors: [],
    tables: {},
  }),
};

const wallet = probes('wallet', 'wallet');
const walletDocs = docs('wallet');
const ledgerDocs = docs('ledger');
const consoleDocs = docs('console');
const ledger = probes('ledger', 'ledger');

/** Both APIs' health probes share one entry point (the schemas are the same); the wallet's /version takes a credential, so it has its own. */
export const platformRoutes = {
  walletHealthz: wallet.healthz,
  walletVersion: wallet.version,
  ledgerHealthz: ledger.healthz,
  ledgerVersion: ledger.version,
  walletOpenApi: openApi('wallet', 'platform/openapi-wallet'),
  ledgerOpenApi: openApi('ledger', 'platform/openapi-ledger'),
  consoleOpenApi: openApi('console', 'platform/openapi-console'),
  walletDocs: walletDocs.page,
  walletDocsRenderer: walletDocs.renderer,
  ledgerDocs: ledgerDocs.page,
  ledgerDocsRenderer: ledgerDocs.renderer,
  consoleDocs: consoleDocs.page,
  consoleDocsRenderer: consoleDocs.renderer,
  consoleDashboard: dashboard.page,
  consoleDashboardApp: dashboard.app,
};
