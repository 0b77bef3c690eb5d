import * as z from 'zod';
import type { EventPayloads } from '../../events/names';
import { topup } from './schemas';

/** The `data` of the top-up events (docs/webhooks.md), collected by shared/event-types.ts. */
export const topupEventPayloads = {
  'topup.succeeded': z.object({ topup }).meta({ id: 'TopupSucceededEventData' }),
  'topup.failed': z
    .object({
      topup,
      /** `refunded_after_mismatch` when an operator refunded a mismatched top-up. */
      reason: z.string().optional(),
    })
    .meta({ id: 'TopupFailedEventData' }),
  'topup.amount_mismatch': z.object({ topup }).meta({ id: 'TopupAmountMismatchEventData' }),
} as const satisfies EventPayloads;
