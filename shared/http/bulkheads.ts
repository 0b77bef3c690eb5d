import type { AnyRoute, Api } from './route';

/**
 * Concurrency bulkheads (spec part 7 `bulkhead_full`, 503): each route's function may run at most
 * this many requests at once, so a flood on one route cannot take the capacity every other route
 * needs. In AWS it is the function's reserved concurrency: Lambda throttles the excess, API
 * Gateway answers an INTEGRATION_FAILURE, which the gateway responses map to 503 bulkhead_full with
 * Retry-After (lib/gateway-responses.ts). The embedded gateway counts requests in flight per route
 * and answers the same problem (local/gateway.ts).
 *
 * Reserved concurrency comes out of the account's regional pool (1,000 by default, of which 100
 * must stay unreserved), so the defaults below add up to well under 900 for every route of the
 * manifest (test/infra checks it); `-c bulkheadScale=<n>` multiplies them for an account with a
 * raised quota, `-c bulkheadScale=0` turns them off (docs/infrastructure.md).
 */
export const DEFAULT_BULKHEAD: Record<Api, number> = {
  // The ledger serves every money path of every tenant: the widest lane.
  ledger: 8,
  wallet: 8,
  auth: 8,
  console: 2,
};

/** The most requests a route's function serves at once: its own setting or its API's default. */
export const bulkheadOf = (route: AnyRoute): number => route.function?.maxConcurrency ?? DEFAULT_BULKHEAD[route.api];
