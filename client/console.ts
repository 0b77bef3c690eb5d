import type { Client } from 'openapi-fetch';
import { createApiClient, type ApiClientOptions } from './core';
import { idempotentOperations, type paths } from './generated/console';

export type ConsolePaths = paths;

/** A typed client of the operators' console API (docs/openapi/console.json), credential a staff session. */
export const createConsoleClient = (options: ApiClientOptions): Client<paths> => createApiClient<paths>(options, idempotentOperations);
