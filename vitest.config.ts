import './local/sdk-node-warning.ts';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take 20 s or more each, longest first (a fresh clone's run, 2026-11-28). Vitest
 * starts the files it has timed before longest first, but a fresh clone (CI) has no timings and
 * starts the largest files first: these short files of many concurrent operations came late, and
 * one worker ran the last of them alone while the other had finished (trigger-expiry's 36 s after
 * the unit tests). Started first, the two workers end together. A stale entry only changes the order.
 */
const LONGEST = [
  'test/api/catalog-stock.test.ts',
  'test/api/docs-examples.test.ts',
  'test/api/listen-trigger.test.ts',
  'test/infra/bundle.test.ts',
  'test/api/saga-faults.test.ts',
  'test/api/money-concurrency.test.ts',
  'test/api/trigger-expiry.test.ts',
  'test/api/webhooks-lifecycle.test.ts',
  'test/integration/orders.test.ts',
  'test/api/fuzz.test.ts',
  'test/api/access.test.ts',
  'test/api/start.test.ts',
  'test/api/login-attacks.test.ts',
  'test/api/payouts.test.ts',
];

/** Vitest's order, with LONGEST moved to the front in their order (the sort is stable: the rest keep vitest's). */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((name) => file.moduleId.replaceAll('\\', '/').endsWith(name));
      return index === -1 ? LONGEST.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // One DynamoDB Local (in memory, free port) for the whole run; each file makes its own tables.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two files at a time on this 2-core machine: three took longer (510 s of vitest against 484, 2026-11-27).
    maxWorkers: 2,
    // Caps for a hung test, not measures: a test's outcome never depends on the machine's speed, so
    // the caps leave room for two suites side by side on a busy 2-core machine (issue 30), where
    // the 500 concurrent money operations took over 60 s.
    testTimeout: 180_000,
    hookTimeout: 240_000,
    // The embedded platform's invocations get 12 times their function's timeout as the deadline of
    // their retries (local/drivers/context.ts): 50 writers on one item took over 9 s here. No EMF
    // metric lines on the run's output from handlers a test calls directly, as the embedded
    // platform writes none (local/platform.ts); the metrics tests set METRICS=stdout themselves.
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'SILENT', EMBEDDED_TIMEOUT_SCALE: process.env.EMBEDDED_TIMEOUT_SCALE ?? '12', METRICS: process.env.METRICS ?? 'off' },
  },
});
