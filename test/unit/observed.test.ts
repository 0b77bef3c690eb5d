import { describe, expect, it } from 'vitest';
import { workerContext } from '../../local/drivers/context';
import { observed } from '../../shared/kernel/observability';
import { linesWritten } from '../support/logs';

/**
 * A worker's failed run (shared/kernel/observability.ts, `observed`) is logged as `worker failed`
 * with its error and its function, then thrown for Lambda to count: a scheduled worker's errors
 * raise an alarm (lib/workers.ts), and docs/runbook.md ("Scheduled worker errors") finds the runs
 * by this line. The suite runs with LOG_LEVEL=SILENT; this file logs errors.
 */
process.env.LOG_LEVEL = 'ERROR';

describe('a worker run', () => {
  it('that fails is logged as "worker failed" with its error and function, and still fails', async () => {
    const refused = new Error('ledger unreachable on purpose');
    let thrown: unknown;
    const lines = await linesWritten(() => observed(async () => Promise.reject(refused))({}, workerContext('walletSweepOperations', 60, 'run-1')).catch((error: unknown) => (thrown = error)));
    expect(thrown).toBe(refused);
    const failed = lines.filter((line) => line.message === 'worker failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 'ERROR', function_name: 'walletSweepOperations', function_request_id: 'run-1', error: { name: 'Error', message: 'ledger unreachable on purpose' } });
  });

  it('that succeeds logs no error', async () => {
    const lines = await linesWritten(async () => expect(await observed(async () => 3)({}, workerContext('walletSweepOperations', 60, 'run-2'))).toBe(3));
    expect(lines.filter((line) => line.level === 'ERROR')).toEqual([]);
  });
});
