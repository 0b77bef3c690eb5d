import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ok } from '../../client/core';
import { createWalletClient } from '../../client/wallet';
import type { Platform } from '../../local/platform';
import { seedOnFirstStart } from '../../local/seed';
import { contractCheckedFetch } from '../support/contract';
import { startTestPlatform } from '../support/platform';

/**
 * The typed client (client/) as the README's quick start uses it: the seeded demo tenant's sandbox
 * key, two users, a top-up through the sandbox processor, a transfer with a fee, balances, and a
 * ledger that nets to zero, over HTTP against the embedded platform.
 */

let platform: Platform;
let dataDir: string;
let wallet: ReturnType<typeof createWalletClient>;

beforeAll(async () => {
  platform = await startTestPlatform();
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-client-'));
  const { bootstrap } = await seedOnFirstStart(platform, dataDir);
  wallet = createWalletClient({ baseUrl: platform.urls.public, credential: bootstrap.demo_tenant.api_key, fetch: contractCheckedFetch });
});

afterAll(async () => {
  await platform?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function availableOf(userId: string): Promise<number> {
  const balances = await ok(wallet.GET('/v1/users/{userId}/balances', { params: { path: { userId } } }));
  return balances.available;
}

describe('the typed client', () => {
  it("runs the README's money flow: users, a sandbox top-up, a transfer with a fee, a ledger that nets to zero", async () => {
    await ok(wallet.PUT('/v1/fee_plan', { body: { p2p: { bps: 150, flat: 10, min_fee: 10, max_fee: 500 } } }));
    await ok(wallet.POST('/v1/users', { body: { external_id: 'alice' } }));
    await ok(wallet.POST('/v1/users', { body: { external_id: 'bob' } }));
    const find = async (externalId: string) => (await ok(wallet.GET('/v1/users', { params: { query: { external_id: externalId } } }))).data[0]!.id;
    const [alice, bob] = [await find('alice'), await find('bob')];

    // No Idempotency-Key given: the client makes one.
    const topup = await ok(wallet.POST('/v1/topups', { body: { user_id: alice, amount: 10_000, currency: 'USD', sandbox_outcome: 'succeed' } }));
    expect(topup.status).toBe('pending');
    const deadline = Date.now() + 15_000;
    while ((await availableOf(alice)) !== 10_000) {
      if (Date.now() > deadline) throw new Error('the sandbox processor did not confirm the top-up');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const transfer = await ok(wallet.POST('/v1/transfers', { body: { from_user_id: alice, to_user_id: bob, amount: 2500 } }));
    expect(transfer).toMatchObject({ amount: 2500, fee: 48 });
    expect(await availableOf(bob)).toBe(2500);
    expect(await availableOf(alice)).toBe(10_000 - 2500 - 48);

    const summary = await ok(wallet.GET('/v1/ledger/summary'));
    const byCommodity = new Map<string, number>();
    for (const row of summary.rows) byCommodity.set(row.commodity, (byCommodity.get(row.commodity) ?? 0) + row.balance);
    expect([...byCommodity.values()]).toEqual([0]);
  });

  it('replays a money-moving call given the same Idempotency-Key, and throws refusals as ApiError with their code', async () => {
    const alice = (await ok(wallet.GET('/v1/users', { params: { query: { external_id: 'alice' } } }))).data[0]!.id;
    const bob = (await ok(wallet.GET('/v1/users', { params: { query: { external_id: 'bob' } } }))).data[0]!.id;
    const send = (amount: number, key: string) =>
      wallet.POST('/v1/transfers', { params: { header: { 'Idempotency-Key': key } }, body: { from_user_id: alice, to_user_id: bob, amount } });
    const first = await send(100, 'client-replay-1');
    const again = await send(100, 'client-replay-1');
    expect(again.data!.id).toBe(first.data!.id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');

    const refused = await send(1_000_000, 'client-too-much').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 422, code: 'insufficient_funds' });
    expect((refused as ApiError).requestId).toEqual(expect.any(String));
  });
});
