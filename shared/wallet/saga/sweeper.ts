import { dueEntries, UnreadableItems } from '../../aws/due-keys';
import { getItem, isConditionalCheckFailed, putItem } from '../../aws/store';
import type { WalletDeps } from '../deps';
import { createdItems, resume } from './engine';
import { METRIC, recordMetric } from '../../kernel/metrics';
import { codec, str } from '../../kernel/codec';
import { IDEMPOTENCY_RETENTION_SECONDS, operationKeys, readRecord, reindex, SWEEP_AFTER_MS, SWEEP_SHARDS, toSweepEntry, type StartedRecord, type SweepEntry } from './key-record';

/**
 * How far behind its last walk the sweeper starts the next: an entry that shows in the index late
 * (a slow write, the index's lag) is still walked up to SWEEP_AFTER_MS - LATE_START_MS +
 * SWEEP_RESCAN_MS (30 s) after its instant. Each key is walked about 1.2 times at one walk a minute.
 */
const SWEEP_RESCAN_MS = 10_000;

/**
 * The sweeper: finishes every operation left unfinished for longer than SWEEP_AFTER_MS, and
 * answers how many it finished. Every key is in the sweep index from its start until an answer is
 * written, and a `creates` success writes none, so the index holds the day's keys: the sweeper
 * walks each shard (the four at once) from where its last walk ended (less SWEEP_RESCAN_MS, for
 * entries that showed late) up to SWEEP_AFTER_MS ago, reads the items of the `creates` keys it meets in one batch per
 * page, and resumes those with an item missing and every other started key, each from the plan
 * its first try pinned. One it cannot finish (the ledger is down) is indexed again at now, for a later walk.
 *
 * A key whose stored item it cannot read (`StoredItemInvalid`: written outside the platform) does
 * not stop the others: it is logged with its key and passed, the walk finishes every other key,
 * its shard's mark stays before it, and the sweep then fails with that error. So every run finishes
 * what it can and fails again until the item is mended, which the scheduled worker's errors alarm
 * reports (docs/runbook.md, "Scheduled worker errors").
 */
export async function sweepOperations(runtime: WalletDeps): Promise<number> {
  const now = runtime.clock.now().getTime();
  const shards = await Promise.allSettled(Array.from({ length: SWEEP_SHARDS }, (_, shard) => sweepShard(runtime, shard, now)));
  const failed = shards.find((shard) => shard.status === 'rejected');
  if (failed) throw failed.reason;
  return shards.reduce((sum, shard) => sum + (shard.status === 'fulfilled' ? shard.value : 0), 0);
}

/** How far the sweeper has walked a shard. */
const decodeSweepMark = codec<{ through: string }>('saga_sweep', { through: str });

/**
 * One shard's walk, its mark moved on after every page (a walk cut short by its function's timeout
 * keeps what it did). Everything walked up to an instant is marked as walked up to SWEEP_RESCAN_MS
 * before it, so the next walk reads that stretch again.
 */
async function sweepShard(runtime: WalletDeps, shard: number, now: number): Promise<number> {
  const before = new Date(now - SWEEP_AFTER_MS).toISOString();
  const mark = await getItem(runtime, operationKeys.sweptThrough(shard));
  const after = mark ? decodeSweepMark(mark).through : new Date(now - IDEMPOTENCY_RETENTION_SECONDS * 1000).toISOString();
  if (after >= before) return 0;
  const markThrough = async (instant: string) => {
    const through = new Date(Date.parse(instant) - SWEEP_RESCAN_MS).toISOString();
    if (through <= after) return;
    try {
      await putItem(runtime, { ...operationKeys.sweptThrough(shard), entity: 'saga_sweep', through }, { condition: 'attribute_not_exists(pk) OR through < :through', values: { ':through': through } });
    } catch (error) {
      // Another walk got further.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  };
  const entries = dueEntries(runtime.client, runtime.table, {
    index: 'gsi3',
    partition: operationKeys.pendingShard(shard),
    after,
    before,
    projection: 'operation, operation_id, #state, created_at',
    names: { '#state': 'state' },
  });
  let finished = 0;
  const unreadable = new UnreadableItems();
  /** The instant of the earliest entry whose item it could not read: the mark stays before it. */
  let unreadableAt: string | undefined;
  const passUnreadable = (error: unknown, key: { pk: unknown; sk?: unknown }, instant: string) => {
    unreadable.pass(error, key);
    if (unreadableAt === undefined || instant < unreadableAt) unreadableAt = instant;
  };
  const markBefore = (instant: string) => markThrough(unreadableAt !== undefined && unreadableAt < instant ? unreadableAt : instant);
  let page: { tenantId: string; key: string; instant: string; record: SweepEntry }[] = [];
  const sweepPage = async () => {
    // Read a while after they were written: an eventually consistent read sees them; whether
    // they are there is all a walk needs.
    const answered = await createdItems(runtime, page, { consistent: false, keysOnly: true });
    for (const { tenantId, key, instant, record: entry } of page) {
      if (answered.has(entry.operation_id)) continue;
      let record: Awaited<ReturnType<typeof readRecord>>;
      try {
        record = await readRecord(runtime, tenantId, key);
      } catch (error) {
        passUnreadable(error, operationKeys.record(tenantId, key), instant);
        continue;
      }
      if (!record || record.state !== 'started' || record.operation_id !== entry.operation_id) continue;
      try {
        await resume(runtime, tenantId, key, record as StartedRecord, {});
        finished += 1;
        recordMetric(METRIC.moneyResumed, 'Count', 1, { Operation: record.operation });
      } catch {
        // Still failing (the ledger is down): indexed again, for a later walk.
        await reindex(runtime, tenantId, key, record.operation_id);
      }
    }
    await markBefore(page[page.length - 1]!.instant);
    page = [];
  };
  for await (const item of entries) {
    const instant = str(item.gsi3sk, 'idempotency', 'gsi3sk').split('#')[0]!;
    try {
      page.push({ ...operationKeys.ofRecord(item.pk), instant, record: toSweepEntry(item) });
    } catch (error) {
      passUnreadable(error, item, instant);
    }
    if (page.length === 100) await sweepPage();
  }
  if (page.length > 0) await sweepPage();
  await markBefore(before);
  unreadable.end();
  return finished;
}
