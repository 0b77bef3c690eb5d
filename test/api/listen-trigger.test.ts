import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../client/core';
import { eventPayloads } from '../../shared/event-types';
import { verifyWebhook } from '../../shared/wallet/webhooks/verify';
import { NO_RECIPE } from '../../scripts/trigger/recipes';
import { TRIGGERABLE_TYPES, triggerEvent } from '../../scripts/trigger/run';
import { TriggerRefusal, type TriggerContext } from '../../scripts/trigger/fixtures';
import { spawnCollecting } from '../support/npm-start';
import { HOLD_EXPIRY_TYPES, startTriggerPlatform, type TriggerPlatform } from '../support/trigger';

/**
 * `npm run webhooks:listen` and `npm run trigger` against an embedded platform they find as on a
 * laptop: platform.json and bootstrap.json in a data folder (DATA_DIR). The holds are the
 * defaults (15 minutes for orders, 7 days for payments), as `npm start` has them: the recipes that
 * pay, cancel or void what they just opened act within the hold whatever the machine's speed (a
 * test's 180 s cap ends it long before an order's 900 s hold). The expiry events, which need holds
 * of seconds, are fired by test/api/trigger-expiry.test.ts on a platform of their own.
 */

let started: TriggerPlatform;
let dataDir: string;
let ctx: TriggerContext;

beforeAll(async () => {
  started = await startTriggerPlatform();
  ({ dataDir, ctx } = started);
});

afterAll(() => started?.stop());

/** A CLI of the repository started on the test's data folder. */
const startCli = (args: string[]) => spawnCollecting(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, DATA_DIR: dataDir } });

/** A CLI run to its end; asynchronously, since the platform it calls answers from this very process. */
async function runCli(args: string[]): Promise<{ status: number | null; output: string }> {
  const { child, output } = startCli(args);
  const status = await new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { status, output: output() };
}

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('npm run webhooks:listen', () => {
  it('forwards a delivery with its own signed bytes and headers, which the receiver verifies with the printed secret', async () => {
    const received: { body: Buffer; signature: string | undefined; eventId: string | undefined; userAgent: string | undefined }[] = [];
    const receiver: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
        const header = (name: string) => request.headers[name] as string | undefined;
        received.push({ body: Buffer.concat(chunks), signature: header('x-wallet-signature'), eventId: header('x-wallet-event-id'), userAgent: header('user-agent') });
        response.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const forwardTo = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const listen = startCli(['scripts/webhooks-listen.ts', '--forward-to', forwardTo, '--events', 'transfer.*']);
    try {
      const secret = await waitFor('signing secret', () => /signing secret is (whsec_\S+) \(endpoint ([0-9a-f-]+)/.exec(listen.output())?.slice(1));

      const trigger = await runCli(['scripts/trigger.ts', 'transfer.completed']);
      expect(trigger.status, trigger.output).toBe(0);
      const eventId = /Trigger succeeded: transfer\.completed (\S+)/.exec(trigger.output)![1]!;

      const delivery = await waitFor('forwarded delivery', () => received.find((r) => r.eventId === eventId));
      expect(verifyWebhook(delivery.body, delivery.signature, secret[0]!)).toMatchObject({ ok: true });
      // The delivery's own headers, not the forwarder's.
      expect(delivery.userAgent).toMatch(/wallet/i);
      expect(JSON.parse(delivery.body.toString('utf8'))).toMatchObject({ id: eventId, type: 'transfer.completed' });
      await waitFor('the printed event', () => (listen.output().includes(`--> transfer.completed [${eventId}]`) && listen.output().includes('<-- [200] POST') ? true : undefined));

      // Ctrl-C deletes the endpoint it registered.
      listen.child.kill('SIGINT');
      await new Promise((r) => listen.child.once('exit', r));
      const endpoints = await ok(ctx.wallet.GET('/v1/webhook_endpoints'));
      expect(endpoints.map((e) => e.id)).not.toContain(secret[1]);
    } finally {
      listen.child.kill('SIGKILL');
      receiver.close();
    }
  });

  it('refuses a forward target that is not on this machine', async () => {
    const result = await runCli(['scripts/webhooks-listen.ts', '--forward-to', 'http://example.com/hooks']);
    expect(result.status).toBe(2);
    expect(result.output).toContain('error: --forward-to must be an http URL on this machine');
  });
});

describe('npm run trigger', () => {
  it('has a recipe for every event type the platform emits, or says why not', () => {
    expect(Object.keys(eventPayloads).filter((type) => !TRIGGERABLE_TYPES.includes(type) && !(type in NO_RECIPE))).toEqual([]);
  });

  it('says clearly that a name is no event type', async () => {
    const unknown = await runCli(['scripts/trigger.ts', 'payment.teleported']);
    expect(unknown.status).toBe(1);
    expect(unknown.output).toContain('error: payment.teleported is not an event type; the platform emits: ');
  });

  it.concurrent.each(TRIGGERABLE_TYPES.filter((type) => !(HOLD_EXPIRY_TYPES as readonly string[]).includes(type)))('fires %s', async (type) => {
    const event = await triggerEvent(ctx, type);
    expect(event.type).toBe(type);
  });

  it.concurrent.each([
    ['order.expired', 'ORDER_HOLD_SECONDS'],
    ['payment.expired', 'PAYMENT_HOLD_SECONDS'],
  ] as const)('refuses %s in words while the hold is far ahead, naming %s', async (type, setting) => {
    expect(HOLD_EXPIRY_TYPES).toContain(type);
    const refusal = await triggerEvent(ctx, type).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(TriggerRefusal);
    expect((refusal as Error).message).toMatch(new RegExp(`this platform holds for \\d+ s \\(${setting}\\); restart it with ${setting}=5`));
  });
});

describe('npm run trigger, where the platform differs from the defaults', () => {
  it('fires subscription.retry_scheduled when the tenant charges a p2p fee', async () => {
    const plan = await ok(ctx.wallet.GET('/v1/fee_plan'));
    await ok(ctx.wallet.PUT('/v1/fee_plan', { body: { p2p: { bps: 150, flat: 10, min_fee: 10, max_fee: 500 } } }));
    try {
      expect((await triggerEvent(ctx, 'subscription.retry_scheduled')).type).toBe('subscription.retry_scheduled');
    } finally {
      await ok(ctx.wallet.PUT('/v1/fee_plan', { body: { p2p: plan.fees.p2p } }));
    }
  });
});
