import type { APIGatewayProxyResult } from 'aws-lambda';
import { gatewayOf, type GatewayName } from './gateways';
import type { Api, HttpMethod } from './route';

/**
 * Cross-origin access for the dashboard, and for nothing else. The dashboard is served by the
 * console API (`GET /dashboard`) but reads and acts through the wallet and auth APIs on the public
 * gateway, another origin: those APIs answer that one origin (DASHBOARD_ORIGIN, the console API's
 * origin, set on their functions and on the public gateway's fallback) with
 * `Access-Control-Allow-Origin`, and the fallback answers its preflights. Any other origin gets
 * no CORS header at all, so a browser keeps every other page's script away from the APIs; callers
 * that are not browsers never send Origin and see no difference. The credential is a bearer token
 * in Authorization, never a cookie, so no request carries an ambient credential.
 *
 * Read from the environment directly, not through ../kernel/config: the fallback function answers
 * preflights and must stay free of the configuration schema's cold start.
 */

/** The gateway a dashboard page calls across origins (the wallet and auth APIs). */
const CROSS_ORIGIN_GATEWAY: GatewayName = 'public';

/** Request headers the dashboard sends: its session token, JSON bodies, and the key retries reuse. */
const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key';
/** Response headers the dashboard reads besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = 'retry-after, x-request-id';
/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE = '600';

/** The one origin allowed across origins, or undefined (then none is). */
export function dashboardOrigin(): string | undefined {
  const origin = process.env.DASHBOARD_ORIGIN;
  return origin ? origin : undefined;
}

/** Whether a request from `origin` through `gateway` is the dashboard's, so its answer carries CORS headers. */
export function isDashboardRequest(origin: string | undefined, gateway: GatewayName): boolean {
  const allowed = dashboardOrigin();
  return allowed !== undefined && origin === allowed && gateway === CROSS_ORIGIN_GATEWAY;
}

/** Headers every answer to the dashboard's cross-origin requests carries (success and problem alike). */
export function corsHeaders(origin: string | undefined, api: Api): Record<string, string> {
  if (!isDashboardRequest(origin, gatewayOf(api))) return {};
  return { 'access-control-allow-origin': origin!, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
}

/**
 * The answer to a CORS preflight (`OPTIONS` with Origin and Access-Control-Request-Method) on a
 * path whose routes allow `allowed`, or null when it is not the dashboard's preflight for a method
 * the path serves (the request is then answered as any unrouted one: 405 with Allow).
 */
export function preflightResponse(
  headers: Readonly<Record<string, string | undefined>>,
  method: string,
  allowed: readonly string[],
  gateway: GatewayName,
  requestId: string,
): APIGatewayProxyResult | null {
  if (method !== 'OPTIONS') return null;
  const origin = headers.origin;
  const requested = headers['access-control-request-method']?.toUpperCase();
  if (!requested || !allowed.includes(requested as HttpMethod) || !isDashboardRequest(origin, gateway)) return null;
  return {
    statusCode: 204,
    headers: {
      'access-control-allow-origin': origin!,
      'access-control-allow-methods': allowed.join(', '),
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': PREFLIGHT_MAX_AGE,
      vary: 'Origin',
      'x-request-id': requestId,
    },
    body: '',
  };
}
