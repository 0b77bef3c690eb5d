import * as z from 'zod';
import type { EventPayloads } from '../../events/names';
import { payment, refund } from './schemas';

/** The `data` of the payment and refund events (docs/webhooks.md), collected by shared/event-types.ts. */
export const paymentEventPayloads = {
  'payment.authorized': z.object({ payment }).meta({ id: 'PaymentAuthorizedEventData' }),
  'payment.captured': z.object({ payment }).meta({ id: 'PaymentCapturedEventData' }),
  'payment.voided': z.object({ payment }).meta({ id: 'PaymentVoidedEventData' }),
  'payment.expired': z.object({ payment }).meta({ id: 'PaymentExpiredEventData' }),
  'refund.completed': z.object({ refund }).meta({ id: 'RefundCompletedEventData' }),
} as const satisfies EventPayloads;
