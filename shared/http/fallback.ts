import type { APIGatewayProxyResult } from 'aws-lambda';
import { AppError } from '../kernel/errors';
import { problemResponse } from './problem';
import { compilePath, type AnyRoute } from './route';
import { gateways, type GatewayName } from './gateways';
import { preflightResponse } from './cors';

/**
 * Route matching for one gateway, and the problem+json answer for requests no route serves:
 * 404 `not_found` for an unknown path, 405 `method_not_allowed` (with Allow) for a known path
 * and a wrong method. The local gateway and the AWS fallback function both answer through here.
 */
/** What matching needs of a route; the AWS fallback gets only this (a file the bundle script writes). */
export type RoutePath = Pick<AnyRoute, 'api' | 'method' | 'path'>;

export interface RouteTable<R extends RoutePath = AnyRoute> {
  match(method: string, path: string): { route: R; params: Record<string, string> } | { allowed: string[] } | null;
}

export function routeTable<R extends RoutePath>(routes: readonly R[], gateway: GatewayName): RouteTable<R> {
  const served = routes
    .filter((route) => gateways[gateway].apis.includes(route.api))
    .map((route) => ({ route, matchPath: compilePath(route.path) }));
  return {
    match(method, path) {
      const allowed: string[] = [];
      for (const { route, matchPath } of served) {
        const params = matchPath(path);
        if (!params) continue;
        if (route.method === method) return { route, params };
        allowed.push(route.method);
      }
      return allowed.length > 0 ? { allowed: [...new Set(allowed)] } : null;
    },
  };
}

/**
 * The answer to a request no route serves. A CORS preflight (OPTIONS) from the dashboard's origin
 * on a path the public gateway serves is answered here, as API Gateway sends it to the fallback
 * too (./cors.ts); `request` carries what that needs.
 */
export function unroutedResponse(
  allowed: string[] | null,
  method: string,
  path: string,
  requestId: string,
  request?: { gateway: GatewayName; headers: Readonly<Record<string, string | undefined>> },
): APIGatewayProxyResult {
  const preflight = allowed && request ? preflightResponse(request.headers, method, allowed, request.gateway, requestId) : null;
  if (preflight) return preflight;
  if (allowed) {
    return problemResponse(
      new AppError('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.`, {
        headers: { allow: allowed.join(', ') },
      }),
      requestId,
    );
  }
  return problemResponse(new AppError('not_found', `No operation is served at ${method} ${path}.`), requestId);
}
