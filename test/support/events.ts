import { TransactWriteCommand, type DocumentClient } from '../../shared/aws/dynamodb';
import { queryAll } from '../../shared/aws/store';
import { eventKeys, outboxItem, type EventEnvelope } from '../../shared/events/outbox';

/** An event as the tests read it: the envelope, its data loosely typed. */
export interface StoredEvent {
  id: string;
  type: string;
  tenant_id: string;
  client_id?: string;
  created_at: string;
  data: Record<string, any>;
}

/**
 * Every event the tenant's history holds (its outbox items), oldest first, optionally of one type:
 * read from the table itself, every partition, every page, consistently.
 */
export async function storedEvents(deps: { client: DocumentClient; table: string }, tenantId: string, type?: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for (const partition of eventKeys.history(tenantId).partitions) {
    for await (const item of queryAll(deps, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partition }, ConsistentRead: true })) {
      events.push(item.envelope as StoredEvent);
    }
  }
  return events.filter((event) => type === undefined || event.type === type).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The tenant's events about one top-up (their `data.topup.id`), oldest first. */
export async function eventsOfTopup(deps: { client: DocumentClient; table: string }, tenantId: string, topupId: string): Promise<StoredEvent[]> {
  return (await storedEvents(deps, tenantId)).filter((event) => event.data.topup?.id === topupId);
}

/**
 * An event committed as a domain service commits it: its outbox item in a TransactWriteItems
 * (a fee_plan.set of an empty plan unless a type and data are given).
 */
export async function commitEvent(
  deps: { client: DocumentClient; table: string; ids: () => string; clock: { now(): Date } },
  tenantId: string,
  type = 'fee_plan.set',
  data: Record<string, unknown> = { fee_plan: { fees: {}, commission_mode: 'deduct' } },
  clientId?: string,
): Promise<EventEnvelope> {
  const { item, envelope } = outboxItem(deps, { type, tenantId, ...(clientId ? { clientId } : {}), data });
  await deps.client.send(new TransactWriteCommand({ TransactItems: [item] }));
  return envelope;
}
