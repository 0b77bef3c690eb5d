import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files start in. Vitest starts the files that took longest last time first, but a
 * fresh clone (CI) has no such record, and then it starts the largest files first: a short file
 * that runs long (it waits for a schedule, or starts `npm start`) came last and ran alone while
 * the other worker idled (`trigger-expiry`, 35 s, of which 20 s waiting, in every CI run). These
 * files, the longest by wall time in the runs of 2026-11-27, start first, in this order; the rest
 * keep vitest's. `test/unit/sequencer.test.ts` holds that each still exists.
 */
export const LONGEST_FIRST = [
  'test/api/docs-examples.test.ts',
  'test/api/saga-faults.test.ts',
  'test/api/catalog-stock.test.ts',
  'test/api/crash-recovery.test.ts',
  'test/api/listen-trigger.test.ts',
  'test/infra/bundle.test.ts',
  'test/api/money-concurrency.test.ts',
  'test/api/trigger-expiry.test.ts',
] as const;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = (LONGEST_FIRST as readonly string[]).indexOf(relative(file.project.config.root, file.moduleId));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
