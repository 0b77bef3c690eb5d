import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { TRIGGERABLE_TYPES, triggerEvent } from '../../scripts/trigger/run';
import type { TriggerContext } from '../../scripts/trigger/fixtures';
import { until } from '../support/time';
import { HOLD_EXPIRY_TYPES, startTriggerPlatform, type TriggerPlatform } from '../support/trigger';

/**
 * `npm run trigger` for the events that fire when a hold runs out, on a platform started as the
 * README says to fire them: holds of a few seconds (PAYMENT_HOLD_SECONDS, ORDER_HOLD_SECONDS).
 * Only these recipes run here: each waits for its hold to end before it runs the worker, so
 * however slow the machine, the hold is over by then. A recipe that pays, cancels or voids what it
 * just opened would race a hold this short (on a busy machine its next request came after 3 s),
 * which is why test/api/listen-trigger.test.ts fires the others on the default holds.
 */

const HOLD_SECONDS = '3';

let started: TriggerPlatform;
let platform: Platform;
let ctx: TriggerContext;

beforeAll(async () => {
  started = await startTriggerPlatform({ PAYMENT_HOLD_SECONDS: HOLD_SECONDS, ORDER_HOLD_SECONDS: HOLD_SECONDS });
  ({ platform, ctx } = started);
});

afterAll(() => started?.stop());

describe('npm run trigger, where holds are seconds long', () => {
  it.concurrent.each(HOLD_EXPIRY_TYPES)('fires %s', async (type) => {
    expect(TRIGGERABLE_TYPES).toContain(type);
    const event = await triggerEvent(ctx, type);
    expect(event.type).toBe(type);
  });

  it('waits for the expiry workers on their minute schedule when it cannot run them, and says so', async () => {
    // The test plays the schedule: its own timers stop, and it runs the workers once, 20 s after
    // the trigger starts waiting for them (a minute's schedule may take up to 60 s).
    await platform.scheduler.stop();
    const lines: string[] = [];
    const asCli: TriggerContext = { wallet: ctx.wallet, currency: ctx.currency, say: (line) => lines.push(line) };
    const tick = (async () => {
      await until(() => lines.filter((line) => /every minute/.test(line)).length >= 2, 60_000, 'both triggers waiting for the workers');
      await new Promise((r) => setTimeout(r, 20_000));
      await platform.scheduler.run('paymentsExpireHolds');
      await platform.scheduler.run('ordersExpire');
    })();
    const [payment, order] = await Promise.all([triggerEvent(asCli, 'payment.expired'), triggerEvent(asCli, 'order.expired'), tick]);
    expect(payment).toMatchObject({ type: 'payment.expired' });
    expect(order).toMatchObject({ type: 'order.expired' });
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/then for paymentsExpireHolds, which runs every minute: up to \d+ s$/),
        expect.stringMatching(/then for ordersExpire, which runs every minute: up to \d+ s$/),
      ]),
    );
  });
});
