import type { Client } from 'openapi-fetch';
import { createApiClient, type ApiClientOptions } from './core';
import { idempotentOperations, type paths } from './generated/ledger';

export type LedgerPaths = paths;

/** A typed client of the ledger API (docs/openapi/ledger.json), credential an OIDC client-credentials access token. */
export const createLedgerClient = (options: ApiClientOptions): Client<paths> => createApiClient<paths>(options, idempotentOperations);
