import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import type { AnyRoute } from '../../shared/http/route';
import { uuidv7 } from '../../shared/kernel/ids';
import type { ErrorCode } from '../../shared/kernel/errors';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { clientRoutes as catalogClientRoutes } from '../../shared/wallet/catalog/client-routes';
import { offeringRoutes } from '../../shared/wallet/catalog/routes';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffAccount, staffLogin, staffToken, userTokenFor } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';

/**
 * Authority over a client (spec part 5 rule 3) on every route that names one: an organization
 * member, a key bound to this client and tenant staff holding clients:manage act; a key bound to
 * another client and staff without clients:manage are not_client_member; a user token is
 * forbidden; another tenant sees client_not_found. Tenant-level client administration (approve,
 * suspend, members) needs clients:manage and is never a bound key's. Each admitted call is a
 * valid request that must succeed, so a wrong refusal and a wrong admission both fail here.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let tenantId: string;
let tenantKey: string;
let clientId: string;
/** A tenant staff member to add and remove as a member. */
let staffId: string;
let offeringId: string;
const credentials = {} as Record<Caller, string>;
type Caller = 'member' | 'boundHere' | 'boundOther' | 'staffManage' | 'staffWithout' | 'userToken' | 'otherTenant';

const catalogScopes = ['merchants:read', 'merchants:write', 'webhooks:read'];

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.urls.public;
  const platformStaff = await staffToken(platform, { role: 'platform' });
  const tenant = (name: string) => createTenant(api, platformStaff, name);
  let otherTenantId: string;
  [tenantId, otherTenantId] = [await tenant('Catalog A'), await tenant('Catalog B')];
  staffId = (await staffAccount(platform, { role: 'tenant_staff', tenantId })).id;
  tenantKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  clientId = (await clientOf(base, tenantKey)).id;
  const otherClient = (await clientOf(base, tenantKey)).id;
  const offering = await api('POST', `/v1/clients/${clientId}/offerings`, { token: tenantKey, body: { title: 'Tee', variants: [{ sku: 'BASE-1', amount: 100 }] } });
  offeringId = offering.body.id;

  const member = await staffAccount(platform, { role: 'tenant_staff', tenantId, scopes: catalogScopes });
  expect((await api('POST', `/v1/clients/${clientId}/members`, { token: tenantKey, body: { staff_id: member.id } })).status).toBe(201);
  credentials.member = await staffLogin(platform, member.email, member.password);
  credentials.boundHere = await apiKeyFor(platform, tenantId, catalogScopes, { clientId });
  credentials.boundOther = await apiKeyFor(platform, tenantId, catalogScopes, { clientId: otherClient });
  credentials.staffManage = await staffToken(platform, { role: 'tenant_staff', tenantId, scopes: ['clients:manage'] });
  credentials.staffWithout = await staffToken(platform, { role: 'tenant_staff', tenantId, scopes: catalogScopes });
  expect((await api('POST', '/v1/users', { token: tenantKey, body: { external_id: 'u' } })).status).toBe(201);
  credentials.userToken = await userTokenFor(platform, tenantKey, 'u', [...TENANT_SCOPES]);
  credentials.otherTenant = await apiKeyFor(platform, otherTenantId, [...TENANT_SCOPES]);
});

afterAll(() => platform?.stop());

/** The client's webhook endpoint the endpoint reads name (one, made on first use). */
let clientEndpointId: string | undefined;

/** A valid request of each route naming a client; fresh objects where the call consumes one. */
async function requestOf(route: AnyRoute): Promise<{ path: string; body?: unknown; key?: string }> {
  const unique = uuidv7().slice(-12);
  const variant = async () => (await api('POST', `/v1/clients/${clientId}/offerings/${offeringId}/variants`, { token: tenantKey, body: { sku: `V-${unique}`, amount: 5 } })).body.id as string;
  const offering = `/v1/clients/${clientId}/offerings/${offeringId}`;
  switch (route.operationId) {
    case 'createOffering':
      return { path: `/v1/clients/${clientId}/offerings`, body: { title: `T ${unique}` } };
    case 'updateOffering':
      return { path: offering, body: { title: `T ${unique}` } };
    case 'createVariant':
      return { path: `${offering}/variants`, body: { sku: `N-${unique}`, amount: 7 } };
    case 'updateVariant':
      return { path: `${offering}/variants/${await variant()}`, body: { amount: 9 } };
    case 'retireVariant':
      return { path: `${offering}/variants/${await variant()}/retire` };
    case 'changeStock':
      return { path: `${offering}/variants/${await variant()}/stock`, body: { delta: 3, reason: 'count' } };
    case 'importCatalog':
      return {
        path: `/v1/clients/${clientId}/imports`,
        key: uuidv7(),
        body: { format: 'json', content: { products: [{ ref: `R-${unique}`, kind: 'item', title: 'Imported', variants: [{ sku: `I-${unique}`, amount: 100 }] }] } },
      };
    case 'addClientMember':
      return { path: `/v1/clients/${clientId}/members`, body: { staff_id: staffId } };
    case 'removeClientMember':
      return { path: `/v1/clients/${clientId}/members/${staffId}` };
    case 'getClientWebhookEndpoint': {
      clientEndpointId ??= (await api('POST', `/v1/clients/${clientId}/webhook_endpoints`, { token: tenantKey, key: uuidv7(), body: { url: 'http://127.0.0.1:9/hooks' } })).body.id as string;
      return { path: `/v1/clients/${clientId}/webhook_endpoints/${clientEndpointId}` };
    }
    default:
      return { path: route.path.replace('{clientId}', clientId).replace('{offeringId}', offeringId) };
  }
}

const clientRoutes = [...Object.values(catalogClientRoutes), ...Object.values(offeringRoutes), ...Object.values(webhookRoutes)].filter(
  (route) => route.path.includes('{clientId}') && !route.path.startsWith('/v1/platform/') && !route.path.startsWith('/v1/explore/') && !(route.method !== 'GET' && route.path.includes('webhook')),
) as AnyRoute[];
const administration = new Set(['approveClient', 'suspendClient', 'addClientMember', 'removeClientMember']);

const expected = (route: AnyRoute): Record<Caller, 'admitted' | ErrorCode> =>
  administration.has(route.operationId)
    ? { member: 'insufficient_scope', boundHere: 'forbidden', boundOther: 'forbidden', staffManage: 'admitted', staffWithout: 'insufficient_scope', userToken: 'forbidden', otherTenant: 'client_not_found' }
    : { member: 'admitted', boundHere: 'admitted', boundOther: 'not_client_member', staffManage: 'admitted', staffWithout: 'not_client_member', userToken: 'forbidden', otherTenant: 'client_not_found' };

describe.each(clientRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_, route) => {
  it('acts for the client\'s authorities only', async () => {
    for (const [caller, outcome] of Object.entries(expected(route)) as [Caller, 'admitted' | ErrorCode][]) {
      if (route.operationId === 'removeClientMember' && outcome === 'admitted') {
        await api('POST', `/v1/clients/${clientId}/members`, { token: tenantKey, body: { staff_id: staffId } });
      }
      const request = await requestOf(route);
      const result = await api(route.method, request.path, { token: credentials[caller], body: request.body, ...(request.key ? { key: request.key } : {}) });
      if (outcome === 'admitted') expect(result.status, `${caller}: ${result.text}`).toBeLessThan(300);
      else expectProblem(result, outcome, caller);
    }
  });
});

describe('organization membership', () => {
  it('ends with the membership, and self-serve onboarding makes the staff member its first member', async () => {
    const onboarder = await staffAccount(platform, { role: 'tenant_staff', tenantId, scopes: ['clients:onboard', 'merchants:write'] });
    const token = await staffLogin(platform, onboarder.email, onboarder.password);
    const merchant = await api('POST', '/v1/merchants', { token: tenantKey, body: { name: 'Self' } });
    const created = await api('POST', '/v1/clients', { token, body: { merchant_id: merchant.body.id, org_alias: `self-${uuidv7().slice(-8)}`, display_name: 'Self', category: 'toys' } });
    expect(created.status, created.text).toBe(201);
    expect((await api('POST', `/v1/clients/${created.body.id}/offerings`, { token, body: { title: 'Mine' } })).status).toBe(201);
    expectProblem(await api('POST', `/v1/clients/${created.body.id}/approve`, { token }), 'insufficient_scope');
    expectProblem(await api('POST', `/v1/clients/${clientId}/offerings`, { token, body: { title: 'Not mine' } }), 'not_client_member');

    const removed = await api('DELETE', `/v1/clients/${created.body.id}/members/${onboarder.id}`, { token: tenantKey });
    expect(removed.status, removed.text).toBe(200);
    expectProblem(await api('POST', `/v1/clients/${created.body.id}/offerings`, { token, body: { title: 'Gone' } }), 'not_client_member');
    expectProblem(await api('DELETE', `/v1/clients/${created.body.id}/members/${onboarder.id}`, { token: tenantKey }), 'not_found');
    expectProblem(await api('POST', `/v1/clients/${created.body.id}/members`, { token: tenantKey, body: { staff_id: uuidv7() } }), 'not_found');
  });
});
