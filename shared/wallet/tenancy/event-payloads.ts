import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { feePlan } from './schemas';

/** The `data` of the tenancy events (docs/webhooks.md), collected by shared/event-types.ts. */
export const tenancyEventPayloads = {
  'fee_plan.set': z.object({ fee_plan: feePlan }).check(z.meta({ id: 'FeePlanSetEventData' })),
} as const satisfies EventPayloads;
