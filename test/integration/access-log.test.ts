import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { systemClock } from '../../shared/kernel/clock';
import { derivedUuidv7, uuidv7 } from '../../shared/kernel/ids';
import type { StoreDeps } from '../../shared/wallet/deps';
import { listAccessLog, recordCrossTenantRead, type AccessLogEntry } from '../../shared/wallet/tenancy/access-log';
import { settleQueues, startTestPlatform } from '../support/platform';

/**
 * The unfiltered access log walks its day partitions newest first: across empty days, past the
 * days one page may read (a short page with a cursor), down to `since` (default 90 days back).
 */

const DAY = 86_400_000;
let platform: Platform;
let deps: StoreDeps;
const written: { id: string; daysAgo: number }[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  deps = { client: localDocumentClient(platform.dynamodbEndpoint), table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7 };
  const now = Date.now();
  for (const [n, daysAgo] of [0, 0, 2, 40, 89, 100].entries()) {
    // An entry written `daysAgo` (its id names the time; the day partition follows the id).
    const id = derivedUuidv7(now - daysAgo * DAY - n, `entry-${n}`);
    await recordCrossTenantRead({ ...deps, ids: () => id }, { actor: { kind: 'platform_staff', id: 'staff-1' }, operation: `read-${daysAgo}`, filters: {}, count: n, requestId: `r-${n}` });
    written.push({ id, daysAgo });
  }
  // Each entry is queued by the read and written by the access-records worker.
  await settleQueues(platform);
});

afterAll(() => platform?.stop());

async function walk(query: { since?: string; limit: number }): Promise<{ entries: AccessLogEntry[]; pages: number }> {
  const entries: AccessLogEntry[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages < 20; pages += 1) {
    const page = await listAccessLog(deps, { ...query, cursor });
    entries.push(...page.data);
    if (!page.next_cursor) return { entries, pages };
    cursor = page.next_cursor;
  }
  throw new Error('the walk did not end');
}

describe('the unfiltered access log', () => {
  it('pages newest first across days, empty ones and more than one page of days included, back to 90 days', async () => {
    const { entries, pages } = await walk({ limit: 2 });
    const within = written.filter((entry) => entry.daysAgo < 90).map((entry) => entry.id).sort().reverse();
    expect(entries.map((entry) => entry.id)).toEqual(within);
    expect(pages).toBeGreaterThanOrEqual(3);
  });

  it('reaches further back with since, and not past it', async () => {
    const all = await walk({ since: new Date(Date.now() - 101 * DAY).toISOString(), limit: 10 });
    expect(all.entries.map((entry) => entry.id)).toEqual(written.map((entry) => entry.id).sort().reverse());
    const recent = await walk({ since: new Date(Date.now() - 3 * DAY).toISOString(), limit: 10 });
    expect(recent.entries.map((entry) => entry.operation)).toEqual(['read-0', 'read-0', 'read-2']);
  });
});
