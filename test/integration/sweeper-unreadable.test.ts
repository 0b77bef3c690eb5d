import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand, UpdateCommand } from '../../shared/aws/dynamodb';
import { getItem } from '../../shared/aws/store';
import { ManualClock } from '../../shared/kernel/clock';
import { StoredItemInvalid } from '../../shared/kernel/codec';
import { uuidv7 } from '../../shared/kernel/ids';
import { operationKeys, SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { sweepOperations } from '../../shared/wallet/saga/sweeper';
import { createTransfer, listTransfers } from '../../shared/wallet/transfers/transfers';
import { apiKeyPrincipals } from '../support/services';
import { tenancyFixture, type TenancyFixture } from './tenancy-fixture';

/**
 * The sweeper meets a started key whose stored item it cannot read (written outside the platform):
 * it still finishes every other unfinished operation, fails the sweep with that error (the
 * scheduled worker's errors alarm), and walks the key again each run until the item is mended.
 */

let f: TenancyFixture;

beforeAll(async () => {
  f = await tenancyFixture();
});
afterAll(() => f?.stop());

describe('the sweeper and an item it cannot read', () => {
  it('finishes the other operations, fails each run naming the item, and goes on once it is mended', async () => {
    const tenant = await f.tenant();
    const [alice, bob] = [await f.user(tenant.id), await f.user(tenant.id)];
    await f.fund(tenant, alice.cash_account_id, 5_000);
    const clock = new ManualClock(new Date());
    const clocked = f.walletRuntime(clock);
    const crash = { afterLedger: () => { throw new Error('crashed after the ledger posting'); } };
    const transfer = (key: string) =>
      createTransfer(clocked, apiKeyPrincipals(['transfers:write'])(tenant.id), tenant.id, { from_user_id: alice.id, to_user_id: bob.id, amount: 900 }, { idempotencyKey: key, requestId: uuidv7() }, crash);

    // An unfinished transfer, and just before it in its shard of the index a started key whose
    // operation id is not text (what no platform write makes).
    const key = uuidv7();
    await expect(transfer(key)).rejects.toThrow('crashed');
    const started = (await getItem(clocked, operationKeys.record(tenant.id, key)))!;
    const poison = { ...operationKeys.record(tenant.id, `unreadable-${uuidv7()}`), gsi3pk: started.gsi3pk, gsi3sk: `${new Date(clock.now().getTime() - 1_000).toISOString()}#x`, operation: 'transfer.create', operation_id: 42, state: 'started', created_at: clock.now().toISOString(), expires_at_epoch: Math.floor(clock.now().getTime() / 1000) + 86_400 };
    await f.deps.client.send(new PutCommand({ TableName: f.deps.table, Item: poison }));

    // A minute past due: well past the stretch each walk reads again (SWEEP_RESCAN_MS), so only a
    // mark kept before the unreadable key brings the next walk back to it.
    clock.advance(SWEEP_AFTER_MS + 60_000);
    await expect(sweepOperations(clocked)).rejects.toBeInstanceOf(StoredItemInvalid);
    expect((await listTransfers(f.deps, tenant.id, { limit: 10 })).data.map((t) => t.amount)).toEqual([900]);

    // The next run walks it again (the shard's mark stayed before it), and fails again.
    clock.advance(70_000);
    await expect(sweepOperations(clocked)).rejects.toThrow(/operation_id/);

    // Mended (here: taken out of the index), the next run succeeds and has nothing left to do.
    await f.deps.client.send(new UpdateCommand({ TableName: f.deps.table, Key: { pk: poison.pk, sk: poison.sk }, UpdateExpression: 'REMOVE gsi3pk, gsi3sk' }));
    clock.advance(70_000);
    await expect(sweepOperations(clocked)).resolves.toBe(0);
    expect((await listTransfers(f.deps, tenant.id, { limit: 10 })).data).toHaveLength(1);
  });
});
