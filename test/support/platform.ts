import { inject } from 'vitest';
import { startPlatform, type Platform, type PlatformOptions } from '../../local/platform';
import { routes as manifestRoutes } from '../../shared/routes';
import { queues as manifestQueues, workers as manifestWorkers } from '../../shared/workers';
import { uuidv7 } from '../../shared/kernel/ids';

/**
 * The embedded platform for one test file: the run's DynamoDB Local, tables of its own, every
 * gateway on a free loopback port. Tests call it over HTTP, like a client.
 */
export async function startTestPlatform(overrides: Partial<PlatformOptions> = {}): Promise<Platform> {
  return startPlatform({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tablePrefix: `t${uuidv7().replace(/-/g, '').slice(-12)}`,
    ports: { public: 0, ledger: 0, console: 0 },
    issuerPort: 0,
    routes: manifestRoutes,
    workers: manifestWorkers,
    queues: manifestQueues,
    ...overrides,
  });
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
  return { status: response.status, headers: response.headers, text, body: (/json/.test(type) && text ? JSON.parse(text) : text) as T };
}
