import type { TransactItem } from '../aws/dynamodb';
import { spreadCollection } from '../aws/merged-pages';
import { codec, stored } from '../kernel/codec';

/**
 * The outbox: an event is an item written in the same TransactWriteItems as the domain state it
 * describes, so state and event commit together or not at all. The WalletTable stream carries it
 * to the relay (EventBridge, webhook deliveries). Envelope as spec part 2: id, type, tenant_id,
 * client_id (merchant events only), created_at with milliseconds, data keyed by resource name.
 */

export const EVENT_RETENTION_DAYS = 30;
/**
 * A tenant's event history is spread over this many partitions by event id: one partition takes
 * about 1,000 writes a second and new ids always sort last (no split for heat), so one partition
 * would cap a tenant's whole event rate; 16 match the ledger's transactions index.
 */
export const EVENT_PARTITIONS = 16;

export interface EventEnvelope {
  id: string;
  type: string;
  tenant_id: string;
  client_id?: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** An event item's envelope, as the outbox wrote it (checked against its type's schema then). */
export const envelopeOf = (item: Record<string, unknown>): EventEnvelope => decodeEventItem(item).envelope;
const decodeEventItem = codec<{ envelope: EventEnvelope }>('event', { envelope: stored<EventEnvelope>() });

export const eventKeys = {
  /** A tenant's event history: an event is read by id with its tenant, and written with no index entry. */
  history: (tenantId: string) => spreadCollection(`EVENTS#${tenantId}`, EVENT_PARTITIONS),
  event: (tenantId: string, eventId: string) => eventKeys.history(tenantId).key(eventId),
  /** Where events written before the spread live (read by id only, until their 30 days end). */
  legacy: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' }),
};

export function outboxItem(
  deps: { table: string; ids: () => string; clock: { now(): Date } },
  event: { type: string; tenantId: string; clientId?: string; data: Record<string, unknown> },
  /** An id and instant fixed by the caller (an operation's nth event: every retry writes the same item). */
  identity?: { id: string; at: Date },
): { item: TransactItem; envelope: EventEnvelope } {
  const now = identity?.at ?? deps.clock.now();
  const envelope: EventEnvelope = {
    id: identity?.id ?? deps.ids(),
    type: event.type,
    tenant_id: event.tenantId,
    ...(event.clientId ? { client_id: event.clientId } : {}),
    created_at: now.toISOString(),
    data: event.data,
  };
  return {
    envelope,
    item: {
      Put: {
        TableName: deps.table,
        Item: {
          ...eventKeys.event(event.tenantId, envelope.id),
          entity: 'event',
          envelope,
          expires_at_epoch: Math.floor(now.getTime() / 1000) + EVENT_RETENTION_DAYS * 86_400,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}
