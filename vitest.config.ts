import './local/sdk-node-warning.ts';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
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
