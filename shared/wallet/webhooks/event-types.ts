import * as z from 'zod';
import { catalogImport, offering, variant } from '../catalog/schemas';
import { order } from '../orders/schemas';
import { subscription } from '../subscriptions/schemas';
import { conversion } from '../rewards/schemas';
import { payment, refund } from '../payments/schemas';
import { payout } from '../payouts/schemas';
import { feePlan } from '../tenancy/schemas';
import { topup } from '../topups/schemas';
import { creditLimitResult, transfer } from '../transfers/schemas';
import { DISABLE_REASONS, endpoint, event } from './schemas';
import { EVENT_TYPES } from '../../events/names';

/**
 * The delivery envelope (spec part 2) and the `data` shape of every event type emitted today, for
 * the OpenAPI document and for receivers' own validation. Types without an entry here are not
 * emitted yet; their envelope is the generic one. This module pulls in the payload schemas of
 * several areas: import it from documentation and tests, not from a function's hot path
 * (filters and matching need only ./names).
 */

export const eventType = z.enum(EVENT_TYPES);

/** Any event: what GET /v1/webhook_events lists and every delivery's body (generic `data`). */
export const eventEnvelope = event;

export type EventEnvelopeShape = z.infer<typeof eventEnvelope>;

/** `data` of each event type that is emitted today, keyed by type. */
export const eventPayloads = {
  'fee_plan.set': z.object({ fee_plan: feePlan }).meta({ id: 'FeePlanSetEventData' }),
  'topup.succeeded': z.object({ topup }).meta({ id: 'TopupSucceededEventData' }),
  'topup.failed': z
    .object({
      topup,
      /** `refunded_after_mismatch` when an operator refunded a mismatched top-up. */
      reason: z.string().optional(),
    })
    .meta({ id: 'TopupFailedEventData' }),
  'topup.amount_mismatch': z.object({ topup }).meta({ id: 'TopupAmountMismatchEventData' }),
  'transfer.completed': z.object({ transfer }).meta({ id: 'TransferCompletedEventData' }),
  'credit_limit.changed': z.object({ credit_limit: creditLimitResult }).meta({ id: 'CreditLimitChangedEventData' }),
  'payment.authorized': z.object({ payment }).meta({ id: 'PaymentAuthorizedEventData' }),
  'payment.captured': z.object({ payment }).meta({ id: 'PaymentCapturedEventData' }),
  'payment.voided': z.object({ payment }).meta({ id: 'PaymentVoidedEventData' }),
  'payment.expired': z.object({ payment }).meta({ id: 'PaymentExpiredEventData' }),
  'refund.completed': z.object({ refund }).meta({ id: 'RefundCompletedEventData' }),
  'product.created': z.object({ offering }).meta({ id: 'ProductCreatedEventData' }),
  'product.updated': z.object({ offering }).meta({ id: 'ProductUpdatedEventData' }),
  'product.archived': z.object({ offering }).meta({ id: 'ProductArchivedEventData' }),
  'import.completed': z.object({ import: catalogImport }).meta({ id: 'ImportCompletedEventData' }),
  'order.created': z.object({ order }).meta({ id: 'OrderCreatedEventData' }),
  'order.paid': z.object({ order }).meta({ id: 'OrderPaidEventData' }),
  'order.canceled': z.object({ order }).meta({ id: 'OrderCanceledEventData' }),
  'order.expired': z.object({ order }).meta({ id: 'OrderExpiredEventData' }),
  'inventory.low_stock': z.object({ variant }).meta({ id: 'InventoryLowStockEventData' }),
  'subscription.charged': z
    .object({
      subscription,
      charge: z.object({ subscription_id: z.string(), period: z.number().int(), amount: z.number().int(), fee: z.number().int(), commission: z.number().int(), ledger_transaction_id: z.string(), charged_at: z.string() }),
    })
    .meta({ id: 'SubscriptionChargedEventData' }),
  'subscription.retry_scheduled': z.object({ subscription, reason: z.string() }).meta({ id: 'SubscriptionRetryScheduledEventData' }),
  'subscription.paused': z.object({ subscription, reason: z.string() }).meta({ id: 'SubscriptionPausedEventData' }),
  'subscription.resumed': z.object({ subscription }).meta({ id: 'SubscriptionResumedEventData' }),
  'subscription.canceled': z.object({ subscription }).meta({ id: 'SubscriptionCanceledEventData' }),
  'cashback.granted': z
    .object({ cashback: z.object({ payment_id: z.string(), user_id: z.string(), amount: z.number().int(), rule_ids: z.array(z.string()), ledger_transaction_id: z.string() }) })
    .meta({ id: 'CashbackGrantedEventData' }),
  'points.accrued': z
    .object({ points: z.object({ payment_id: z.string(), user_id: z.string(), points: z.number().int(), commodity: z.string(), rule_ids: z.array(z.string()), ledger_transaction_id: z.string() }) })
    .meta({ id: 'PointsAccruedEventData' }),
  'points.converted': z.object({ conversion }).meta({ id: 'PointsConvertedEventData' }),
  'payout.paid': z.object({ payout }).meta({ id: 'PayoutPaidEventData' }),
  'payout.failed': z.object({ payout }).meta({ id: 'PayoutFailedEventData' }),
  'webhook_endpoint.disabled': z
    .object({
      webhook_endpoint: endpoint,
      /** `gone`: the receiver answered 410; `failing`: every attempt failed for 5 days (and 10 deliveries). */
      reason: z.enum(DISABLE_REASONS),
    })
    .meta({ id: 'WebhookEndpointDisabledEventData' }),
} as const satisfies Partial<Record<(typeof EVENT_TYPES)[number], z.ZodType>>;

export type EmittedEventType = keyof typeof eventPayloads;

const componentName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}Event`;

/** The envelope of each emitted type with its `data` shape (`type` a literal), e.g. `TransferCompletedEvent`. */
export const typedEventEnvelopes = Object.fromEntries(
  Object.entries(eventPayloads).map(([type, data]) => [
    type,
    eventEnvelope.extend({ type: z.literal(type), data }).meta({ id: componentName(type) }),
  ]),
) as unknown as { [T in EmittedEventType]: z.ZodObject };

/**
 * One schema for "any delivery": the typed envelopes first, then the generic one for types not
 * described yet (receivers ignore unknown types). For the OpenAPI generator's `webhooks` or a
 * response schema: validation accepts every envelope, documentation shows each shape.
 */
export const anyEventEnvelope = z.union([...Object.values(typedEventEnvelopes), eventEnvelope]).meta({ id: 'WebhookEventAny' });
