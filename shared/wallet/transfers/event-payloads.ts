import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { creditLimitResult, transfer } from './schemas';

/** The `data` of the transfer and credit-limit events (docs/webhooks.md), collected by shared/event-types.ts. */
export const transferEventPayloads = {
  'transfer.completed': z.object({ transfer }).check(z.meta({ id: 'TransferCompletedEventData' })),
  'credit_limit.changed': z.object({ credit_limit: creditLimitResult }).check(z.meta({ id: 'CreditLimitChangedEventData' })),
} as const satisfies EventPayloads;
