import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { ledgerConsumer } from '../support/consumers';
import { linesWritten } from '../support/logs';
import { call, startTestPlatform } from '../support/platform';

/**
 * The embedded platform runs every function in one process, as concurrent invocations of one
 * Powertools Logger: each invocation's lines must still carry its own Lambda context (function name,
 * request id) and its own correlation keys, as they do in AWS where an invocation has its process.
 */

let platform: Platform;
let token: string;
let ledgerId: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { LOG_LEVEL: 'INFO' } });
  // The setup's own request lines are taken off the run's output too.
  await linesWritten(async () => {
    token = (await ledgerConsumer(platform)).token;
    ledgerId = (await call(platform.urls.ledger, 'POST', '/v1/ledgers', { token, body: { name: 'logs', commodity: 'USD' } })).body.id;
  });
});
afterAll(() => platform?.stop());

describe('log lines of concurrent invocations', () => {
  it("carry each invocation's own function name, request id and route", async () => {
    const paths = [`/v1/ledgers/${ledgerId}`, `/v1/ledgers/${ledgerId}/rollup`];

    const lines = await linesWritten(() => Promise.all(Array.from({ length: 16 }, (_, n) => call(platform.urls.ledger, 'GET', paths[n % 2]!, { token }))));

    const requests = lines.filter((line) => line.message === 'request');
    expect(requests).toHaveLength(16);
    expect(new Set(requests.map((line) => line.function_name))).toEqual(new Set(['getLedger', 'getRollup']));
    for (const line of requests) {
      expect([line.function_name, line.function_request_id, line.path]).toEqual([line.route, line.request_id, line.route === 'getLedger' ? paths[0] : paths[1]]);
    }
  });
});
