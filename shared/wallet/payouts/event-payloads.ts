import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { payout } from './schemas';

/** The `data` of the payout events (docs/webhooks.md), collected by shared/event-types.ts. */
export const payoutEventPayloads = {
  'payout.paid': z.object({ payout }).check(z.meta({ id: 'PayoutPaidEventData' })),
  'payout.failed': z.object({ payout }).check(z.meta({ id: 'PayoutFailedEventData' })),
} as const satisfies EventPayloads;
