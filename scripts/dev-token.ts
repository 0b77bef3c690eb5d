import { parseArgs } from 'node:util';
import { readPlatformState } from './platform-state';
import { runCli, UsageError } from './cli';

/**
 * Prints a ledger access token, and only the token, so `TOKEN=$(npm run --silent dev:token -- --client wallet)`
 * works. It performs a real OAuth 2.0 client-credentials exchange (RFC 6749 section 4.4):
 *   - locally, against the running platform's dev OIDC issuer (.data/platform.json `oidc_issuer`),
 *     first registering the client there (`POST /dev/clients`, idempotent) to learn its secret;
 *   - in AWS, with OIDC_TOKEN_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (optional OIDC_SCOPE)
 *     set, against Cognito's /oauth2/token, registering nothing.
 * The ledger accepts the token only once a consumer with sub = the client id exists:
 * `npm run ledger:consumers -- ensure --name <name> --sub <client id>`.
 */

const USAGE = `usage: npm run --silent dev:token -- --client <client id> [--scope <scope>]
Locally: registers the client with the running dev OIDC issuer if needed, then exchanges its credentials.
AWS: set OIDC_TOKEN_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET (and optionally OIDC_SCOPE); --client may be omitted.`;

const TIMEOUT_MS = 10_000;

interface Exchange {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string | undefined;
}

async function main(argv: string[]): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { client: { type: 'string' }, scope: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return USAGE;
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const exchange = awsExchange(values.client, values.scope) ?? (await localExchange(values.client, values.scope));
  return requestToken(exchange);
}

/** The AWS path, when OIDC_* variables are set. */
function awsExchange(client: string | undefined, scope: string | undefined): Exchange | undefined {
  const names = ['OIDC_TOKEN_URL', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;
  const set = names.filter((name) => process.env[name]);
  if (set.length === 0) return undefined;
  if (set.length < names.length) throw new Error(`set all of ${names.join(', ')} (missing ${names.filter((n) => !set.includes(n)).join(', ')})`);
  const clientId = process.env.OIDC_CLIENT_ID!;
  if (client !== undefined && client !== clientId) throw new UsageError(`--client ${client} differs from OIDC_CLIENT_ID ${clientId}`);
  const tokenUrl = process.env.OIDC_TOKEN_URL!;
  assertSafeTokenUrl(tokenUrl);
  return { tokenUrl, clientId, clientSecret: process.env.OIDC_CLIENT_SECRET!, scope: scope ?? process.env.OIDC_SCOPE };
}

/** The laptop path: the running platform's dev issuer registers the client and tells its secret. */
async function localExchange(client: string | undefined, scope: string | undefined): Promise<Exchange> {
  if (!client) throw new UsageError('--client <client id> is required');
  const issuer = readPlatformState().oidcIssuer;
  if (!issuer) throw new Error('the running platform has no dev OIDC issuer (no oidc_issuer in platform.json)');
  const discovery = await getJson(`${issuer}/.well-known/openid-configuration`, { method: 'GET' });
  const tokenUrl = discovery.token_endpoint;
  if (typeof tokenUrl !== 'string') throw new Error(`the dev issuer at ${issuer} publishes no token_endpoint`);
  const registered = await getJson(`${issuer}/dev/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: client }),
  });
  if (typeof registered.client_secret !== 'string') throw new Error(`the dev issuer did not register ${client}`);
  return { tokenUrl, clientId: client, clientSecret: registered.client_secret, scope };
}

async function requestToken(exchange: Exchange): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (exchange.scope) form.set('scope', exchange.scope);
  // client_secret_basic: id and secret are form-encoded before base64 (RFC 6749 section 2.3.1).
  const basic = Buffer.from(`${encodeURIComponent(exchange.clientId)}:${encodeURIComponent(exchange.clientSecret)}`).toString('base64');
  const body = await getJson(exchange.tokenUrl, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form.toString(),
  });
  if (typeof body.access_token !== 'string') throw new Error(`${exchange.tokenUrl} answered without an access_token`);
  return body.access_token;
}

async function getJson(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`${url} did not answer: ${(error as Error).cause ?? (error as Error).message}`);
  }
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Reported below with the status.
  }
  if (!response.ok) {
    const reason = typeof body.error === 'string' ? `${body.error}${body.error_description ? ` (${String(body.error_description)})` : ''}` : text.slice(0, 200);
    throw new Error(`${url} answered ${response.status}: ${reason}`);
  }
  return body;
}

/** A client secret travels in the request: only over https, or plain http on loopback. */
function assertSafeTokenUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`OIDC_TOKEN_URL is not a URL: ${value}`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new Error(`OIDC_TOKEN_URL must be https: ${value}`);
}

await runCli(() => main(process.argv.slice(2)), { hint: '--help shows the options' });
