import { inject } from 'vitest';
import { startPlatform, type Platform, type PlatformOptions } from '../../local/platform';
import { routes as manifestRoutes } from '../../shared/routes';
import { queues as manifestQueues, workers as manifestWorkers } from '../../shared/workers';
import { uuidv7 } from '../../shared/kernel/ids';
import type { GatewayName } from '../../shared/http/gateways';
import type { AnyRoute } from '../../shared/http/route';
import { contractViolations, forgetContract, registerContract } from './contract';
import { pause } from './time';

/**
 * The embedded platform for one test file: the run's DynamoDB Local, tables of its own, every
 * gateway on a free loopback port. Tests call it over HTTP, like a client.
 */
export async function startTestPlatform(overrides: Partial<PlatformOptions> = {}): Promise<Platform> {
  const platform = await startPlatform({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tablePrefix: `t${uuidv7().replace(/-/g, '').slice(-12)}`,
    ports: { public: 0, ledger: 0, console: 0 },
    issuerPort: 0,
    routes: manifestRoutes,
    workers: manifestWorkers,
    queues: manifestQueues,
    // The AWS stage's throttle would make suites that fire hundreds of requests depend on the
    // machine's speed; test/api/throttle.test.ts turns a tiny one on.
    throttle: { public: null, console: null },
    ...overrides,
  });
  // Every response from its gateways is checked against their OpenAPI documents (./contract.ts).
  const routes = overrides.routes ?? manifestRoutes;
  for (const [gateway, url] of Object.entries(platform.urls) as [GatewayName, string][]) registerContract(url, routes, gateway);
  const stop = platform.stop;
  platform.stop = async () => {
    for (const url of Object.values(platform.urls)) forgetContract(url);
    await stop();
  };
  return platform;
}

/** The manifest's routes plus these groups of routes, each operation once (the manifest may already list them). */
export function manifestWith(...groups: object[]): AnyRoute[] {
  const all = new Map<string, AnyRoute>();
  for (const route of [...manifestRoutes, ...groups.flatMap((group) => Object.values(group) as AnyRoute[])] as AnyRoute[]) if (!all.has(route.operationId)) all.set(route.operationId, route);
  return [...all.values()];
}

/**
 * Delivers what the queues hold and waits until the named ones are empty: `drain()` returns when
 * nothing is visible, while a delivery the driver's own poll started may still be running.
 * Default: the queues requests hand their access records and IdP first contacts to.
 *
 * No deadline of its own (issue 30: a test's outcome never depends on the machine's speed): a
 * message leaves its queue once its worker wrote it, or after its queue's receives into the
 * dead-letter list, so the wait ends on any machine; a write that failed comes back only after the
 * visibility timeout (30 s and more), which a fixed 10 s here outlived on a busy machine. The
 * test's own timeout is the cap for a hang.
 */
export async function settleQueues(platform: Platform, queues: readonly string[] = ['accessRecords', 'idpFirstContact']): Promise<void> {
  await platform.queues.drain();
  while (queues.some((queue) => platform.queues.depth(queue) > 0)) await pause(20);
}

export interface CallResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One HTTP call; the body is parsed when the response says JSON. */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string>; token?: string } = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, { method, headers, body });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const parsed = (/json/.test(type) && text ? JSON.parse(text) : text) as T;
  const violations = await contractViolations(base, method, path, response.status, response.headers.get('content-type'), parsed);
  if (violations.length > 0) throw new Error(`The response breaks the API's OpenAPI document:\n${violations.join('\n')}\n${text.slice(0, 2000)}`);
  return { status: response.status, headers: response.headers, text, body: parsed };
}
