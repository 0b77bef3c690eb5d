import type { DocumentClient } from '../../shared/aws/dynamodb';
import { queryAll } from '../../shared/aws/store';
import { eventKeys } from '../../shared/events/outbox';

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
