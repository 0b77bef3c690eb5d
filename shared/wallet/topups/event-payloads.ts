import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { topup } from './schemas';

/** The `data` of the top-up events (docs/webhooks.md), collected by shared/event-types.ts. */
export const topupEventPayloads = {
  'topup.succeeded': z.object({ topup }).check(z.meta({ id: 'TopupSucceededEventData' })),
  'topup.failed': z
    .object({
      topup,
      /** `refunded_after_mismatch` when an operator refunded a mismatched top-up. */
      reason: z.optional(z.string()),
    })
    .check(z.meta({ id: 'TopupFailedEventData' })),
  'topup.amount_mismatch': z.object({ topup }).check(z.meta({ id: 'TopupAmountMismatchEventData' })),
} as const satisfies EventPayloads;
