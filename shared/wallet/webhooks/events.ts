import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AppError } from '../../kernel/errors';
import { eventKeys, type EventEnvelope } from '../../events/outbox';
import { decodeCursor, encodeCursor } from '../../http/cursor';
import type { StoreDeps } from '../deps';
import { getItem, transact, type Page } from '../../aws/store';
import { newDelivery } from './deliveries';
import { endpointsReceiving, getEndpointRecord } from './endpoints';
import { endpointReceives } from './matching';

/**
 * A tenant's event history (the outbox items, kept 30 days) and manual redelivery (spec part 4
 * item 22). Merchants' events are the tenant's too: tenant credentials list and redeliver them.
 */

/** Items one listing request may evaluate when filters are given: a rare type must not read a whole month. */
export const EVENT_SCAN_BUDGET = 1_000;

export interface EventQuery {
  type?: string;
  created_after?: string;
  created_before?: string;
  cursor?: string;
  limit: number;
}

/**
 * Events newest first, optionally of one type or family and inside (created_after,
 * created_before). A filtered page may hold fewer items than `limit` and still have a next_cursor
 * (the scan budget ran out). Refuses: invalid_request (cursor).
 */
export async function listEvents(deps: StoreDeps, tenantId: string, query: EventQuery): Promise<Page<EventEnvelope>> {
  const partition = eventKeys.tenantEvents(tenantId);
  const keyNames = ['pk', 'sk', 'gsi1pk', 'gsi1sk'];
  let start: Record<string, unknown> | undefined;
  if (query.cursor !== undefined) {
    start = decodeCursor(query.cursor, 'invalid_request', keyNames);
    if (start.gsi1pk !== partition || Object.keys(start).length !== keyNames.length) {
      throw new AppError('invalid_request', 'cursor is not a cursor this listing returned.', { errors: [{ field: 'query.cursor', message: 'unknown cursor' }] });
    }
  }
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': partition };
  if (query.type) {
    names['#envelope'] = 'envelope';
    names['#type'] = 'type';
    if (query.type.endsWith('.*')) {
      conditions.push('begins_with(#envelope.#type, :family)');
      values[':family'] = query.type.slice(0, -1);
    } else {
      conditions.push('#envelope.#type = :type');
      values[':type'] = query.type;
    }
  }
  for (const [bound, operator, placeholder] of [
    [query.created_after, '>', ':after'],
    [query.created_before, '<', ':before'],
  ] as const) {
    if (bound === undefined) continue;
    names['#envelope'] = 'envelope';
    names['#created'] = 'created_at';
    conditions.push(`#envelope.#created ${operator} ${placeholder}`);
    // Envelopes carry toISOString() (always milliseconds), so strings compare as instants.
    values[placeholder] = new Date(bound).toISOString();
  }
  const filtered = conditions.length > 0;
  const items: EventEnvelope[] = [];
  let budget = filtered ? EVENT_SCAN_BUDGET : Number.POSITIVE_INFINITY;
  do {
    const limit = Math.max(1, Math.min(query.limit - items.length, budget));
    const result = await deps.client.send(
      new QueryCommand({
        TableName: deps.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ...(filtered ? { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(result.Items ?? []).map((item) => item.envelope as EventEnvelope));
    budget -= result.ScannedCount ?? limit;
    start = result.LastEvaluatedKey;
  } while (filtered && start && items.length < query.limit && budget > 0);
  return { data: items, next_cursor: start ? encodeCursor(start) : null };
}

/** A tenant's event; another tenant's, or one past retention, is not_found. */
export async function getEvent(deps: StoreDeps, tenantId: string, eventId: string): Promise<EventEnvelope> {
  const item = await getItem(deps, eventKeys.event(eventId));
  const envelope = item?.envelope as EventEnvelope | undefined;
  if (!envelope || envelope.tenant_id !== tenantId) throw new AppError('not_found', `No event ${eventId}.`);
  return envelope;
}

/**
 * Sends an event again, one attempt per endpoint, signed at the time of sending: to one endpoint
 * of the tenant (its own or a merchant's) that receives the event, or to every active endpoint that
 * does. Each redelivery is a delivery item of its own; the relay queues it from the stream.
 * Refuses: not_found (event or endpoint unknown, another tenant's, or deleted), invalid_request
 * (the named endpoint does not receive this event).
 */
export async function redeliverEvent(
  deps: StoreDeps,
  tenantId: string,
  eventId: string,
  input: { endpoint_id?: string } | undefined,
): Promise<{ event_id: string; deliveries: { id: string; endpoint_id: string }[] }> {
  const envelope = await getEvent(deps, tenantId, eventId);
  let endpoints;
  if (input?.endpoint_id) {
    const endpoint = await getEndpointRecord(deps, input.endpoint_id);
    if (!endpoint || endpoint.tenant_id !== tenantId || endpoint.status !== 'active') throw new AppError('not_found', `No webhook endpoint ${input.endpoint_id}.`);
    if (!endpointReceives(endpoint, envelope)) {
      throw new AppError('invalid_request', `body.endpoint_id: endpoint ${endpoint.id} does not receive ${envelope.type} events of this event's owner.`, {
        errors: [{ field: 'body.endpoint_id', message: 'does not receive this event' }],
      });
    }
    endpoints = [endpoint];
  } else {
    endpoints = await endpointsReceiving(deps, envelope);
  }
  const deliveries = endpoints.map((endpoint) => newDelivery(deps, envelope, endpoint, 'manual'));
  // At most 2 x 16 endpoints: well inside one transaction's 100 items, all or none.
  if (deliveries.length > 0) {
    await transact(
      deps,
      deliveries.map((delivery) => ({ Put: { TableName: deps.table, Item: delivery, ConditionExpression: 'attribute_not_exists(pk)' } })),
    );
  }
  return { event_id: envelope.id, deliveries: deliveries.map((delivery) => ({ id: delivery.id, endpoint_id: delivery.endpoint_id })) };
}
