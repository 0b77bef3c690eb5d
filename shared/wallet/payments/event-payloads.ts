import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { payment, refund } from './schemas';

/** The `data` of the payment and refund events (docs/webhooks.md), collected by shared/event-types.ts. */
export const paymentEventPayloads = {
  'payment.authorized': z.object({ payment }).check(z.meta({ id: 'PaymentAuthorizedEventData' })),
  'payment.captured': z.object({ payment }).check(z.meta({ id: 'PaymentCapturedEventData' })),
  'payment.voided': z.object({ payment }).check(z.meta({ id: 'PaymentVoidedEventData' })),
  'payment.expired': z.object({ payment }).check(z.meta({ id: 'PaymentExpiredEventData' })),
  'refund.completed': z.object({ refund }).check(z.meta({ id: 'RefundCompletedEventData' })),
} as const satisfies EventPayloads;
