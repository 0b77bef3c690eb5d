import { expectProblem } from '../support/http';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSdkClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { uuidv7 } from '../../shared/kernel/ids';
import { installQueueTransport } from '../../shared/aws/queue';
import { apiKeyFor, staffAccount, staffLogin, staffToken, TEST_STAFF_PASSWORD } from '../support/credentials';
import { call, settleQueues, startTestPlatform, type CallResult } from '../support/platform';

let platform: Platform;
let tenantId: string;
let admin: string;
let engineer: { id: string; email: string };

beforeAll(async () => {
  platform = await startTestPlatform();
  const operator = await staffToken(platform, { role: 'platform' });
  tenantId = (await call(platform.urls.public, 'POST', '/v1/tenants', { token: operator, body: { name: 'Supported', currency: 'EUR' } })).body.id;
  admin = await staffToken(platform, { role: 'partner_admin', tenantId });
  engineer = await staffAccount(platform, { role: 'vendor_support' });
  const key = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  await call(platform.urls.public, 'POST', '/v1/users', { token: key, body: { external_id: 'supported-user' } });
});
afterAll(() => platform?.stop());

const grant = (body: Record<string, unknown> = {}) =>
  call(platform.urls.console, 'POST', '/v1/support_access_grants', {
    token: admin,
    body: { staff_id: engineer.id, reason: 'customer cannot see a top-up', ticket_reference: 'SUP-42', expires_at: new Date(Date.now() + 3600_000).toISOString(), ...body },
  });

const engineerSession = (tenant?: string) =>
  call(platform.urls.public, 'POST', '/v1/auth/staff_sessions', { body: { email: engineer.email, password: TEST_STAFF_PASSWORD, ...(tenant ? { tenant_id: tenant } : {}) } });

async function accessRecords(grantId: string): Promise<{ operation: string; outcome: string }[]> {
  const client = localSdkClient(platform.dynamodbEndpoint, platform.tables.wallet.name);
  try {
    const day = new Date().toISOString().slice(0, 10);
    const page = await client.send(
      new QueryCommand({
        TableName: platform.tables.wallet.name,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'grant_id = :grant',
        ExpressionAttributeValues: { ':pk': { S: `ACCESS_LOG#${day}` }, ':grant': { S: grantId } },
        ConsistentRead: true,
      }),
    );
    return (page.Items ?? []).map((item) => ({ operation: item.operation!.S!, outcome: item.outcome!.S! }));
  } finally {
    client.destroy();
  }
}

describe('support access grants', () => {
  it('refuses an expiry in the past or too far away, and an unknown engineer', async () => {
    expectProblem(await grant({ expires_at: new Date(Date.now() - 1000).toISOString() }), 'invalid_request');
    expectProblem(await grant({ expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString() }), 'invalid_request');
    expectProblem(await grant({ staff_id: uuidv7() }), 'invalid_request');
  });

  it('grants once; a second live grant is support_access_already_active', async () => {
    const first = await grant();
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ tenant_id: tenantId, staff_id: engineer.id, ticket_reference: 'SUP-42', revoked_at: null, created_by_type: 'partner_admin' });
    const second = await grant();
    expectProblem(second, 'support_access_already_active');
    const listed = await call(platform.urls.console, 'GET', '/v1/support_access_grants', { token: admin });
    expect(listed.body.data.map((g: { id: string }) => g.id)).toContain(first.body.id);
  });

  it("records every request of the engineer against the grant, and revocation ends the engineer's access at once", async () => {
    const [live] = (await call(platform.urls.console, 'GET', '/v1/support_access_grants', { token: admin })).body.data;
    const session = await engineerSession(tenantId);
    expect(session.status).toBe(201);
    const users = await call(platform.urls.public, 'GET', '/v1/users', { token: session.body.token });
    expect(users.status).toBe(200);
    expect(users.body.data.map((u: { external_id: string }) => u.external_id)).toContain('supported-user');
    await call(platform.urls.public, 'GET', '/v1/users', { token: session.body.token });
    // Refused requests are recorded too: a write the engineer may not make, a route it may not call.
    expectProblem(await call(platform.urls.public, 'POST', '/v1/users', { token: session.body.token, body: { external_id: 'by-support' } }), 'forbidden');
    expect((await call(platform.urls.public, 'GET', '/v1/fee_plan', { token: session.body.token })).status).toBe(403);
    // Queued by each request before it was answered, written by the access-records worker.
    await settleQueues(platform);
    expect(await accessRecords(live.id)).toEqual(
      expect.arrayContaining([
        { operation: 'listUsers', outcome: 'admitted' },
        { operation: 'createUser', outcome: 'admitted' },
        { operation: 'getFeePlan', outcome: 'admitted' },
      ]),
    );
    expect(await accessRecords(live.id)).toHaveLength(4);

    const revoked = await call(platform.urls.console, 'POST', `/v1/support_access_grants/${live.id}/revoke`, { token: admin });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await call(platform.urls.public, 'GET', '/v1/users', { token: session.body.token })).status).toBe(401);
    await settleQueues(platform);
    expect((await accessRecords(live.id)).filter((record) => record.outcome === 'grant_ended')).toEqual([{ operation: 'listUsers', outcome: 'grant_ended' }]);
    expectProblem(await engineerSession(tenantId), 'forbidden');
    expect((await grant()).status).toBe(201);
  });

  it("refuses the engineer's request with a retryable 503 when its record cannot be queued: nothing is answered unrecorded", async () => {
    const live = (await call(platform.urls.console, 'GET', '/v1/support_access_grants', { token: admin })).body.data.find((g: { revoked_at: string | null }) => g.revoked_at === null);
    const session = await engineerSession(tenantId);
    installQueueTransport({ send: () => Promise.reject(new Error('queue unavailable')) });
    let refused: CallResult | undefined;
    try {
      refused = await call(platform.urls.public, 'GET', '/v1/users', { token: session.body.token });
    } finally {
      installQueueTransport(platform.queues);
    }
    const answered = await call(platform.urls.public, 'GET', '/v1/users', { token: session.body.token });
    await settleQueues(platform);

    expectProblem(refused!, 'service_unavailable');
    expect(answered.status).toBe(200);
    expect(await accessRecords(live.id)).toEqual([{ operation: 'listUsers', outcome: 'admitted' }]);
  });

  it('gives an engineer without a tenant no tenant data', async () => {
    const plain = await staffLogin(platform, engineer.email, TEST_STAFF_PASSWORD);
    const result = await call(platform.urls.public, 'GET', '/v1/users', { token: plain });
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
  });
});
