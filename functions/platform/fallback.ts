import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod';
import { routeTable, unroutedResponse } from '../../shared/http/fallback';
import { uuidv7 } from '../../shared/kernel/ids';
import { routes } from '../../shared/routes';

/**
 * API Gateway sends every request no route method serves here ({proxy+} and ANY on each resource),
 * so an unknown path is a 404 and a wrong method a 405, both problem+json, as on the local gateway.
 */
const gateway = z.enum(['public', 'ledger', 'console']).parse(process.env.GATEWAY_NAME);
const table = routeTable(routes, gateway);

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const requestId = event.requestContext?.requestId || uuidv7();
  const found = table.match(event.httpMethod, event.path);
  const allowed = found && 'allowed' in found ? found.allowed : null;
  return unroutedResponse(allowed, event.httpMethod, event.path, requestId);
};
