import type * as z from '../kernel/zod';

/**
 * The event types of spec part 6, and their families (the text before the dot). Endpoint filters
 * name a type or a whole family (`topup.*`); merchant endpoints receive only the merchant families.
 * New types are added over time (spec part 9): receivers ignore types they do not know.
 */

export const EVENT_TYPES = [
  'topup.succeeded',
  'topup.failed',
  'topup.amount_mismatch',
  'transfer.completed',
  'payment.authorized',
  'payment.captured',
  'payment.voided',
  'payment.expired',
  'refund.completed',
  'cashback.granted',
  'points.accrued',
  'points.converted',
  'subscription.charged',
  'subscription.retry_scheduled',
  'subscription.paused',
  'subscription.resumed',
  'subscription.canceled',
  'credit_limit.changed',
  'fee_plan.set',
  'product.created',
  'product.updated',
  'product.archived',
  'order.created',
  'order.paid',
  'order.canceled',
  'order.expired',
  'inventory.low_stock',
  'import.completed',
  'payout.paid',
  'payout.failed',
  // Ours: an endpoint was disabled (410 Gone, or failing for days); sent to the tenant's other endpoints.
  'webhook_endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * A domain's event payloads: the `data` schema of each type it emits, keyed by a type named above.
 * Each domain keeps its own (shared/wallet/<domain>/event-payloads.ts); shared/event-types.ts joins them.
 */
export type EventPayloads = Partial<Record<EventType, z.core.$ZodType>>;

/** The only families a merchant (client) endpoint ever receives, whatever its filters say. */
export const MERCHANT_FAMILIES: readonly string[] = ['product', 'order', 'inventory', 'import'];

export const familyOf = (type: string): string => type.split('.', 1)[0]!;

export const EVENT_FAMILIES: readonly string[] = [...new Set(EVENT_TYPES.map(familyOf))];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/** A filter is a known type (`topup.succeeded`) or a known family with a wildcard (`topup.*`). */
export function isEventFilter(value: string): boolean {
  if (value.endsWith('.*')) return EVENT_FAMILIES.includes(value.slice(0, -2));
  return isEventType(value);
}

/** Whether `type` is selected by `filter` (an exact type or `family.*`). */
export function filterSelects(filter: string, type: string): boolean {
  return filter.endsWith('.*') ? familyOf(type) === filter.slice(0, -2) : filter === type;
}

export const isMerchantType = (type: string): boolean => MERCHANT_FAMILIES.includes(familyOf(type));
