import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import type { AnyRoute } from '../../shared/http/route';
import { uuidv7 } from '../../shared/kernel/ids';
import { routes } from '../../shared/routes';
import { clientOf } from '../support/catalog';
import { ledgerConsumer } from '../support/consumers';
import { staffAccount } from '../support/credentials';
import { expectProblem } from '../support/http';
import { call, startTestPlatform } from '../support/platform';
import { baseOf, buildWorld, pathOf, type World } from '../support/world';
import { b64url } from '../support/auth';

/**
 * Cursors an attacker makes up, or carries from elsewhere, on every listing of every API: each is
 * refused with 400 (`invalid` on the ledger, `invalid_request` elsewhere), never answered 500 and
 * never used to read another owner's items.
 */

let platform: Platform;
let world: World;
const own: Record<string, string> = {};
/** A genuine cursor of one listing, to be carried to the others. */
let usersCursor: string;
let auditCursor: string;
/** Genuine cursors of the same listings, issued to another tenant or another ledger consumer. */
const foreign: Record<string, string> = {};

const listings = routes.filter((route) => {
  const query = route.request.query as { shape?: Record<string, unknown> } | undefined;
  return route.method === 'GET' && query?.shape !== undefined && 'cursor' in query.shape;
});

const codeOf = (route: AnyRoute) => (route.api === 'ledger' ? 'invalid' : 'invalid_request');
const credentialOf = (route: AnyRoute) => {
  const access = route.access as Exclude<AnyRoute['access'], 'public'>;
  // Authority over the client: tenant staff with clients:manage.
  if (route.path.includes('{clientId}')) return world.full.tenant_staff;
  return world.full[access.principals.includes('api_key') ? 'api_key' : access.principals[0]!];
};

/** The next_cursor of a page of one item from a listing that has at least two. */
async function cursorOf(base: string, path: string, token: string): Promise<string> {
  const page = await call(base, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=1`, { token });
  expect(page.status, page.text).toBe(200);
  expect(page.body.next_cursor, `${path} gave no cursor`).toEqual(expect.any(String));
  return page.body.next_cursor as string;
}

beforeAll(async () => {
  platform = await startTestPlatform({ workers: [] });
  world = await buildWorld(platform);
  const wallet = platform.urls.public;
  const ledger = platform.urls.ledger;

  // A second user in each tenant, so each users listing pages.
  const otherKey = (await call(wallet, 'POST', '/v1/api_keys', { token: world.full.platform_staff, body: { tenant_id: world.otherTenantId, env: 'sandbox', scopes: ['users:read', 'users:write'] } })).body.key;
  for (const [token, name] of [[world.full.api_key, 'second'], [otherKey, 'b-one'], [otherKey, 'b-two']] as const) {
    expect((await call(wallet, 'POST', '/v1/users', { token, body: { external_id: `${name}-${uuidv7()}` } })).status).toBe(201);
  }
  usersCursor = await cursorOf(wallet, '/v1/users', world.full.api_key);
  auditCursor = await cursorOf(wallet, '/v1/audit_log', world.full.api_key);
  foreign.listUsers = await cursorOf(wallet, '/v1/users', otherKey);

  // A client of the tenant, and another client's offerings listing that pages.
  own.clientId = (await clientOf(wallet, world.full.api_key)).id;
  const neighbour = (await clientOf(wallet, world.full.api_key)).id;
  for (const title of ['one', 'two']) expect((await call(wallet, 'POST', `/v1/clients/${neighbour}/offerings`, { token: world.full.api_key, body: { title } })).status).toBe(201);
  foreign.listOfferings = await cursorOf(wallet, `/v1/clients/${neighbour}/offerings`, world.full.api_key);

  // A support access grant of the tenant, for the listing of the requests made under it.
  const engineer = await staffAccount(platform, { role: 'vendor_support' });
  const grant = await call(platform.urls.console, 'POST', '/v1/support_access_grants', {
    token: world.full.partner_admin,
    body: { staff_id: engineer.id, reason: 'cursor test', ticket_reference: 'T-2', expires_at: new Date(Date.now() + 3600_000).toISOString() },
  });
  expect(grant.status, grant.text).toBe(201);
  own.grantId = grant.body.id;

  // Two ledgers each, the first with an account and two postings: ours (the world's consumer) and another consumer's.
  const build = async (token: string) => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) ids.push((await call(ledger, 'POST', '/v1/ledgers', { token, headers: { 'idempotency-key': uuidv7() }, body: { name: `l${i}`, commodity: 'USD' } })).body.id);
    const ledgerId = ids[0]!;
    const open = async (floor: number | null) =>
      (await call(ledger, 'POST', `/v1/ledgers/${ledgerId}/accounts`, { token, headers: { 'idempotency-key': uuidv7() }, body: { owner_type: 'user', owner_id: uuidv7(), purpose: 'cash', commodity: 'USD', floor } })).body.id as string;
    const [source, sink] = [await open(null), await open(0)];
    for (let i = 0; i < 2; i += 1) {
      const posted = await call(ledger, 'POST', `/v1/ledgers/${ledgerId}/postings`, {
        token,
        headers: { 'idempotency-key': uuidv7() },
        body: { type: 'transfer', legs: [{ account_id: source, direction: 'debit', amount: 5, commodity: 'USD' }, { account_id: sink, direction: 'credit', amount: 5, commodity: 'USD' }] },
      });
      expect(posted.status, posted.text).toBe(201);
    }
    return { ledgerId, accountId: sink };
  };
  Object.assign(own, await build(world.full.ledger_consumer));
  // Cursors issued to another consumer, on its own ledger.
  const other = await ledgerConsumer(platform);
  const theirs = await build(other.token);
  foreign.listLedgers = await cursorOf(ledger, '/v1/ledgers', other.token);
  foreign.listTransactions = await cursorOf(ledger, `/v1/ledgers/${theirs.ledgerId}/transactions`, other.token);
  foreign.listAccountEntries = await cursorOf(ledger, `/v1/ledgers/${theirs.ledgerId}/accounts/${theirs.accountId}/entries`, other.token);
});
afterAll(() => platform?.stop());

describe.each(listings.map((route) => [`${route.operationId} (${route.api})`, route] as const))('%s', (_, route) => {
  const forged = () => [
    ['not base64url at all', 'not a cursor!!'],
    ['an empty object', b64url({})],
    ['JSON that is not ours', b64url({ pk: 'TENANT#x', sk: 'USER' })],
    ['our shape, another owner', b64url({ l: 'gsi1', o: `TENANT#${uuidv7()}#USERS`, p: { pk: 'USER#a', sk: 'USER', gsi1pk: `TENANT#${uuidv7()}#USERS`, gsi1sk: uuidv7() } })],
    ['our shape, a position outside the listing', b64url({ l: 'table', o: `ACCOUNT#${own.accountId}`, p: { pk: `ACCOUNT#${own.accountId}`, sk: 'ACCOUNT' } })],
    ['a genuine cursor of another listing', route.operationId === 'listUsers' ? auditCursor : usersCursor],
  ];

  it('refuses forged cursors and cursors of other listings with 400', async () => {
    for (const [label, cursor] of forged()) {
      const result = await call(baseOf(platform, route), 'GET', `${pathOf(route, own)}?cursor=${encodeURIComponent(cursor!)}`, { token: credentialOf(route) });
      expectProblem(result, codeOf(route), `${route.operationId}: ${label}`);
    }
  });
});

describe("another owner's genuine cursor", () => {
  it.each([
    ['listUsers', () => `/v1/users?cursor=${foreign.listUsers}`, () => world.full.api_key, 'wallet'],
    ['listOfferings', () => `/v1/clients/${own.clientId}/offerings?cursor=${foreign.listOfferings}`, () => world.full.api_key, 'wallet'],
    ['listLedgers', () => `/v1/ledgers?cursor=${foreign.listLedgers}`, () => world.full.ledger_consumer, 'ledger'],
    ['listTransactions', () => `/v1/ledgers/${own.ledgerId}/transactions?cursor=${foreign.listTransactions}`, () => world.full.ledger_consumer, 'ledger'],
    ['listAccountEntries', () => `/v1/ledgers/${own.ledgerId}/accounts/${own.accountId}/entries?cursor=${foreign.listAccountEntries}`, () => world.full.ledger_consumer, 'ledger'],
  ] as const)('is refused by %s', async (_, path, token, api) => {
    const result = await call(api === 'ledger' ? platform.urls.ledger : platform.urls.public, 'GET', path(), { token: token() });
    expectProblem(result, api === 'ledger' ? 'invalid' : 'invalid_request');
  });
});
