import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { conversion } from './schemas';

/** The `data` of the reward events (docs/webhooks.md), collected by shared/event-types.ts. */
export const rewardEventPayloads = {
  'cashback.granted': z
    .object({ cashback: z.object({ payment_id: z.string(), user_id: z.string(), amount: z.int(), rule_ids: z.array(z.string()), ledger_transaction_id: z.string() }) })
    .check(z.meta({ id: 'CashbackGrantedEventData' })),
  'points.accrued': z
    .object({ points: z.object({ payment_id: z.string(), user_id: z.string(), points: z.int(), commodity: z.string(), rule_ids: z.array(z.string()), ledger_transaction_id: z.string() }) })
    .check(z.meta({ id: 'PointsAccruedEventData' })),
  'points.converted': z.object({ conversion }).check(z.meta({ id: 'PointsConvertedEventData' })),
} as const satisfies EventPayloads;
