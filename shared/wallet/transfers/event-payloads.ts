import * as z from 'zod';
import type { EventPayloads } from '../../events/names';
import { creditLimitResult, transfer } from './schemas';

/** The `data` of the transfer and credit-limit events (docs/webhooks.md), collected by shared/event-types.ts. */
export const transferEventPayloads = {
  'transfer.completed': z.object({ transfer }).meta({ id: 'TransferCompletedEventData' }),
  'credit_limit.changed': z.object({ credit_limit: creditLimitResult }).meta({ id: 'CreditLimitChangedEventData' }),
} as const satisfies EventPayloads;
