import './local/sdk-node-warning';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // One DynamoDB Local (in memory, free port) for the whole run; each file makes its own tables.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'SILENT' },
  },
});
