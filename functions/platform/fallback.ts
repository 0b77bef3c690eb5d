import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { routeTable, unroutedResponse, type RoutePath } from '../../shared/http/fallback';
import { isGatewayName } from '../../shared/http/gateways';
import { uuidv7 } from '../../shared/kernel/ids';

/**
 * API Gateway sends every request no route method serves here ({proxy+} and ANY on each resource),
 * so an unknown path is a 404 and a wrong method a 405, both problem+json, as on the local gateway.
 * It needs only each route's API, method and path: the bundle script writes them beside it
 * (routes.json, scripts/bundle.ts), so the whole manifest and its schemas stay out of its cold start.
 */
const gateway = process.env.GATEWAY_NAME;
if (!isGatewayName(gateway)) throw new Error(`GATEWAY_NAME must name a gateway; got ${String(gateway)}`);
const table = routeTable(JSON.parse(readFileSync(new URL('./routes.json', import.meta.url), 'utf8')) as RoutePath[], gateway);

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const requestId = event.requestContext?.requestId || uuidv7();
  const found = table.match(event.httpMethod, event.path);
  const allowed = found && 'allowed' in found ? found.allowed : null;
  // Header names as sent (API Gateway keeps their case); a preflight reads Origin and Access-Control-Request-Method.
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  return unroutedResponse(allowed, event.httpMethod, event.path, requestId, { gateway, headers });
};
