import type { Client } from 'openapi-fetch';
import { createApiClient, type ApiClientOptions } from './core';
import { idempotentOperations, type paths } from './generated/wallet';

export type WalletPaths = paths;

/**
 * A typed client of the wallet and auth API (docs/openapi/wallet.json), credential an API key, a
 * user token or a staff session: `createWalletClient({ baseUrl: 'http://127.0.0.1:3000', credential: key })`.
 */
export const createWalletClient = (options: ApiClientOptions): Client<paths> => createApiClient<paths>(options, idempotentOperations);
