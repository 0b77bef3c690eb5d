import * as z from '../../kernel/zod';
import { defineRoute } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import { clientParams, explore, wallet } from './client-routes';
import * as s from './explore-schemas';

/**
 * Explore on the wallet API (docs/catalog.md): the tenant's published catalog as shoppers see it,
 * apart from the merchant's routes (./routes.ts) so an Explore function builds only the shopper
 * schemas at import.
 */

export const exploreRoutes = {
  listExploreClients: defineRoute({
    ...wallet,
    operationId: 'listExploreClients',
    method: 'GET',
    path: '/v1/explore/clients',
    handler: 'catalog/list-explore-clients',
    summary: 'Active clients with published offerings, newest first; by category or free text (`q`)',
    access: explore,
    request: { query: s.exploreListQuery },
    response: { status: 200, body: page(s.exploreClient), description: 'A page of clients in the shopper view.' },
    errors: [],
    tables: { wallet: 'RO' },
  }),
  getExploreClient: defineRoute({
    ...wallet,
    operationId: 'getExploreClient',
    method: 'GET',
    path: '/v1/explore/clients/{clientId}',
    handler: 'catalog/get-explore-client',
    summary: 'A client and its published offerings, in the shopper view (no cost, markup or stock counts)',
    access: explore,
    request: { params: clientParams },
    response: { status: 200, body: s.exploreClientDetail, description: 'The client and its published offerings.' },
    errors: ['client_not_found'],
    tables: { wallet: 'RO' },
  }),
  getExploreOffering: defineRoute({
    ...wallet,
    operationId: 'getExploreOffering',
    method: 'GET',
    path: '/v1/explore/offerings/{offeringId}',
    handler: 'catalog/get-explore-offering',
    summary: 'A published offering in the shopper view',
    access: explore,
    request: { params: z.object({ offeringId: uuid }) },
    response: { status: 200, body: s.exploreOffering, description: 'The offering in the shopper view.' },
    errors: ['offering_not_found', 'client_not_found'],
    tables: { wallet: 'RO' },
  }),
};
