import fc from 'fast-check';
import { beforeAll, expect, inject, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { ensureTables } from '../../local/tables';
import { mergedPage, mergeRange } from '../../shared/aws/merged-pages';
import { putItem, type TableDeps } from '../../shared/aws/store';
import { uuidv7 } from '../../shared/kernel/ids';

/**
 * Property: paging through a listing spread over several partitions, at any page size, with or
 * without a sparse filter, returns every item of the range exactly once, in order (newest first
 * for pages, oldest first for ranges), and a cursor never skips one.
 */

let deps: TableDeps;
beforeAll(async () => {
  const tables = await ensureTables(inject('dynamodbEndpoint'), `m${uuidv7().replace(/-/g, '').slice(-12)}`);
  deps = { client: localDocumentClient(inject('dynamodbEndpoint')), table: tables.ledger.name };
});

const listing = fc.record({
  partitions: fc.integer({ min: 1, max: 9 }),
  items: fc.uniqueArray(fc.record({ key: fc.stringMatching(/^[a-f0-9]{6}$/), partition: fc.nat(), kept: fc.boolean() }), { selector: (item) => item.key, minLength: 20, maxLength: 100, size: 'large' }),
  limit: fc.integer({ min: 1, max: 12 }),
  sparse: fc.boolean(),
});

it('pages over several partitions in order, each item once', async () => {
  await fc.assert(
    fc.asyncProperty(listing, async ({ partitions, items, limit, sparse }) => {
      const run = uuidv7();
      const partitionNames = Array.from({ length: partitions }, (_, p) => `MERGE#${run}#${p}`);
      // About one in thirty kept, when sparse: reads come back nearly empty and the request
      // budget runs out before a page is full.
      const kept = (item: (typeof items)[number]) => !sparse || item.key < '08';
      await Promise.all(items.map((item) => putItem(deps, { pk: partitionNames[item.partition % partitions]!, sk: `E#${item.key}`, kept: kept(item) })));
      const filter = sparse ? { expression: 'kept = :yes', values: { ':yes': true } } : undefined;
      const expected = items.filter(kept).map((item) => `E#${item.key}`).sort();

      const newestFirst: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 200; pages += 1) {
        const page = await mergedPage(deps, { partitions: partitionNames, from: 'E#', to: 'E$', binding: { listing: 'merge', owner: run }, cursor, limit, consistent: true, filter });
        expect(page.items.length).toBeLessThanOrEqual(limit);
        newestFirst.push(...page.items.map((item) => String(item.sk)));
        cursor = page.next_cursor ?? undefined;
        if (!cursor) break;
      }
      expect(newestFirst).toEqual([...expected].reverse());

      const oldestFirst: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 200; pages += 1) {
        const range = await mergeRange(deps, { partitions: partitionNames, from: 'E#', to: 'E$', after, limit, descending: false, consistent: true, filter });
        oldestFirst.push(...range.items.map((item) => String(item.sk)));
        after = range.next;
        if (after === undefined) break;
      }
      expect(oldestFirst).toEqual(expected);
    }),
    { numRuns: 12, seed: 20261125 },
  );
});
