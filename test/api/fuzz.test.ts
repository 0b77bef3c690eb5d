import { ScanCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { localSdkClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { errorCatalogue } from '../../shared/kernel/errors';
import { gatewayOf } from '../../shared/http/gateways';
import type { AnyRoute } from '../../shared/http/route';
import { routes } from '../../shared/routes';
import { contractViolations } from '../support/contract';
import { startTestPlatform } from '../support/platform';
import { buildWorld, type World } from '../support/world';

/**
 * At least 2,000 malformed or hostile requests spread over every manifest route, each with a
 * credential the route admits: wrong types, huge strings and numbers, extra properties such as
 * tenant_id or balance, deep nesting, bad UTF-8, oversized bodies, garbage path ids and queries.
 * No answer is a 5xx, every error is problem+json with a catalogued code, and no stored state
 * changes (every body carries a property no schema accepts, so nothing gets past validation).
 */

let platform: Platform;
let world: World;

beforeAll(async () => {
  platform = await startTestPlatform();
  world = await buildWorld(platform);
  // The scheduled workers (the saga sweeper's progress marks, reconciliation, expiries) write on
  // their own clock, not because of a request: stopped, so the snapshot holds what requests did.
  await platform.scheduler.stop();
});

afterAll(async () => {
  await platform?.stop();
});

/**
 * Everything stored, minus what a refused request may legitimately touch (usage stamps, read logs)
 * and what an answered read leaves (a cross-tenant listing's resume point: a GET has no body to
 * make hostile, so a clamped `limit` is answered, and a page may have a successor).
 */
async function snapshot(): Promise<string[]> {
  const items: string[] = [];
  for (const table of [platform.tables.ledger.name, platform.tables.wallet.name]) {
    // Each table is in a database of its own on DynamoDB Local.
    const client = localSdkClient(platform.dynamodbEndpoint, table);
    try {
      let start: Record<string, never> | undefined;
      do {
        const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }));
        for (const item of page.Items ?? []) {
          // Reads leave two kinds of bookkeeping: who read across tenants, and where a platform listing's next page starts.
          if (item.pk?.S?.startsWith('ACCESS_LOG#') || item.entity?.S === 'platform_transactions_cursor') continue;
          const { last_used_at: _used, ...rest } = item;
          items.push(JSON.stringify(rest, Object.keys(rest).sort()));
        }
        start = page.LastEvaluatedKey as typeof start;
      } while (start);
    } finally {
      client.destroy();
    }
  }
  return items.sort();
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.string({ maxLength: 50 }),
  fc.constantFrom(0, -1, 2 ** 53, -(2 ** 63), '1', '', null, true, [], {}, 'DROP TABLE', '../../etc/passwd', '<script>', '\u0000', '😀'.repeat(50)),
  fc.string({ minLength: 5000, maxLength: 20000 }),
);

/** A raw body: JSON objects with a smuggled property, or bytes that are not acceptable JSON at all. */
const hostileBody: fc.Arbitrary<{ raw: string | Buffer; type: string }> = fc.oneof(
  fc
    .record({ fields: fc.dictionary(fc.constantFrom('amount', 'name', 'legs', 'external_id', 'email', 'currency', 'scopes', 'status', 'floor', 'type'), hostileValue, { maxKeys: 5 }), smuggled: fc.constantFrom('tenant_id', 'balance', 'id', '__proto__', 'constructor', 'is_admin') })
    .map(({ fields, smuggled }) => ({ raw: JSON.stringify({ ...fields, [smuggled]: 'x' }).replace(/^\{/, `{"${smuggled}":1,`).replace(/,}$/, '}'), type: 'application/json' })),
  fc.integer({ min: 100, max: 5000 }).map((depth) => ({ raw: `${'['.repeat(depth)}${']'.repeat(depth)}`, type: 'application/json' })),
  fc.integer({ min: 1, max: 3 }).map((n) => ({ raw: `{"amount": 1${'0'.repeat(n * 200)}, "x": 1}`, type: 'application/json' })),
  fc.constantFrom({ raw: '{"amount": 1e400, "x": 1}', type: 'application/json' }, { raw: '{"amount": 10.5, "x": 1}', type: 'application/json' }, { raw: '{"x": 1', type: 'application/json' }, { raw: 'amount=1', type: 'application/x-www-form-urlencoded' }, { raw: '{"x": 1}', type: 'text/plain' }),
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => ({ raw: Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xc3, 0x28, ...bytes.map((b) => b | 0x80)]), Buffer.from('"}')]), type: 'application/json' })),
  fc.constant({ raw: `{"x":"${'a'.repeat(300 * 1024)}"}`, type: 'application/json' }),
);

const hostilePathValue = fc.oneof(
  fc.uuid(),
  fc.constantFrom('0', '-1', 'null', '%00', '..%2F..', 'a'.repeat(300), '00000000-0000-0000-0000-000000000000'),
  fc
    .string({ minLength: 1, maxLength: 40 })
    .map(encodeURIComponent)
    // `.` and `..` are dot segments: the URL parser resolves them before sending, so they name another path, not a value of this one.
    .filter((value) => value !== '.' && value !== '..'),
);
const hostileQuery = fc.dictionary(fc.constantFrom('limit', 'cursor', 'type', 'tenant_id', 'q', 'since', 'until'), fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('-5', '1e9', '999999999999', 'eyJwayI6MX0', '%FF')), { maxKeys: 3 });

const credentialFor = (route: AnyRoute): string | undefined => {
  if (route.access === 'public') return undefined;
  const kind = route.access.principals[0]!;
  return world.full[kind];
};

it('answers 2,000 hostile requests over every route without a 5xx, with catalogued problems, changing nothing', async () => {
  const before = await snapshot();
  const all = [...routes];
  const requests = await fc.sample(fc.record({ body: hostileBody, path: fc.array(hostilePathValue, { minLength: 4, maxLength: 4 }), query: hostileQuery }), { numRuns: 2000, seed: 424242 });
  const failures: string[] = [];
  let sent = 0;
  const queue = requests.map((request, index) => ({ request, route: all[index % all.length]! }));
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { request, route } = next;
        let param = 0;
        const path = route.path.replace(/\{\w+\}/g, () => request.path[param++ % 4]!);
        const query = new URLSearchParams(request.query).toString();
        const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
        const token = credentialFor(route);
        const response = await fetch(`${platform.urls[gatewayOf(route.api)]}${path}${query ? `?${query}` : ''}`, {
          method: route.method,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(hasBody ? { 'content-type': request.body.type } : {}),
            ...(route.idempotency ? { 'idempotency-key': 'fuzz' } : {}),
          },
          body: hasBody ? request.body.raw : undefined,
        });
        sent += 1;
        const text = await response.text();
        const label = `${route.method} ${path} -> ${response.status} ${text.slice(0, 200)}`;
        // Every answer is also one the API's OpenAPI document describes (as call() checks elsewhere).
        const type = response.headers.get('content-type');
        const parsed = type?.includes('json') && text ? (JSON.parse(text) as unknown) : text;
        const base = platform.urls[gatewayOf(route.api)];
        for (const violation of await contractViolations(base, route.method, `${path}${query ? `?${query}` : ''}`, response.status, type, parsed)) failures.push(`undocumented: ${violation} (${label})`);
        if (response.status >= 500) failures.push(label);
        else if (response.status >= 400) {
          const code = (JSON.parse(text) as { code?: string }).code;
          if (response.headers.get('content-type') !== 'application/problem+json' || !code || !(code in errorCatalogue)) failures.push(label);
        } else if (hasBody) failures.push(`accepted: ${label}`);
      }
    }),
  );
  expect(sent).toBe(2000);
  expect(failures).toEqual([]);
  expect(await snapshot()).toEqual(before);
}, 180_000);
