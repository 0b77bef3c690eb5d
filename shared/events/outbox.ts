import type { TransactItem } from '../aws/dynamodb';

/**
 * The outbox: an event is an item written in the same TransactWriteItems as the domain state it
 * describes, so state and event commit together or not at all. The WalletTable stream carries it
 * to the relay (EventBridge, webhook deliveries). Envelope as spec part 2: id, type, tenant_id,
 * client_id (merchant events only), created_at with milliseconds, data keyed by resource name.
 */

export const EVENT_RETENTION_DAYS = 30;

export interface EventEnvelope {
  id: string;
  type: string;
  tenant_id: string;
  client_id?: string;
  created_at: string;
  data: Record<string, unknown>;
}

export const eventKeys = {
  event: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' }),
  /** gsi1: a tenant's events, newest first by id. */
  tenantEvents: (tenantId: string) => `TENANT#${tenantId}#EVENTS`,
};

export function outboxItem(
  deps: { table: string; ids: () => string; clock: { now(): Date } },
  event: { type: string; tenantId: string; clientId?: string; data: Record<string, unknown> },
): { item: TransactItem; envelope: EventEnvelope } {
  const now = deps.clock.now();
  const envelope: EventEnvelope = {
    id: deps.ids(),
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
          ...eventKeys.event(envelope.id),
          entity: 'event',
          envelope,
          gsi1pk: eventKeys.tenantEvents(event.tenantId),
          gsi1sk: envelope.id,
          expires_at_epoch: Math.floor(now.getTime() / 1000) + EVENT_RETENTION_DAYS * 86_400,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}
