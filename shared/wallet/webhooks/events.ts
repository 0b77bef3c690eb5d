import { AppError } from '../../kernel/errors';
import { envelopeOf, eventKeys, type EventEnvelope } from '../../events/outbox';
import type { StoreDeps } from '../deps';
import { getItem, transact, type Page } from '../../aws/store';
import { collectionPage } from '../../aws/merged-pages';
import { newDelivery } from './deliveries';
import { endpointsReceiving, getEndpointRecord, isLive } from './endpoints';
import { endpointReceives } from './matching';

/**
 * A tenant's event history (the outbox items, kept 30 days) and manual redelivery (spec part 4
 * item 22). Merchants' events are the tenant's too: tenant credentials list and redeliver them.
 */

export interface EventQuery {
  type?: string;
  created_after?: string;
  created_before?: string;
  cursor?: string;
  limit: number;
}

/**
 * Events newest first, optionally of one type or family and inside (created_after,
 * created_before), merged from the history's partitions. A filtered page may hold fewer items than
 * `limit` and still have a next_cursor (its reads are bounded: a rare type must not read a whole
 * month). Refuses: invalid_request (cursor).
 */
export async function listEvents(deps: StoreDeps, tenantId: string, query: EventQuery): Promise<Page<EventEnvelope>> {
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
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
  const page = await collectionPage(deps, eventKeys.history(tenantId), {
    binding: { listing: 'events', owner: tenantId },
    cursor: query.cursor,
    limit: query.limit,
    ...(conditions.length > 0 ? { filter: { expression: conditions.join(' AND '), names, values } } : {}),
  });
  return { data: page.items.map(envelopeOf), next_cursor: page.next_cursor };
}

/** A tenant's event; another tenant's, or one past retention, is not_found. */
export async function getEvent(deps: StoreDeps, tenantId: string, eventId: string): Promise<EventEnvelope> {
  const envelope = await readEvent(deps, tenantId, eventId);
  if (!envelope) throw new AppError('not_found', `No event ${eventId}.`);
  return envelope;
}

/** An event of the tenant by id, or undefined; one written before the history was spread is read where it was. */
export async function readEvent(deps: StoreDeps, tenantId: string, eventId: string): Promise<EventEnvelope | undefined> {
  const item = await getItem(deps, eventKeys.event(tenantId, eventId));
  return item ? envelopeOf(item) : readLegacyEvent(deps, tenantId, eventId);
}

/** An event of the tenant written before its history was spread (`EVENT#<id>`), or undefined. */
async function readLegacyEvent(deps: StoreDeps, tenantId: string, eventId: string): Promise<EventEnvelope | undefined> {
  const item = await getItem(deps, eventKeys.legacy(eventId));
  const envelope = item && envelopeOf(item);
  return envelope?.tenant_id === tenantId ? envelope : undefined;
}

/**
 * Sends an event again, one attempt per endpoint, signed at the time of sending: to one endpoint
 * of the tenant (its own or a merchant's) that receives the event, or to every active endpoint that
 * does. Each redelivery is a delivery item of its own; the relay queues it from the stream.
 * Refuses: not_found (event or endpoint unknown, another tenant's, or deleted), invalid_request
 * (the named endpoint does not receive this event, or is disabled).
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
    if (!endpoint || endpoint.tenant_id !== tenantId || !isLive(endpoint)) throw new AppError('not_found', `No webhook endpoint ${input.endpoint_id}.`);
    if (endpoint.status !== 'active') {
      throw new AppError('invalid_request', `body.endpoint_id: endpoint ${endpoint.id} is disabled; POST /v1/webhook_endpoints/{endpointId}/recover enables it again.`, {
        errors: [{ field: 'body.endpoint_id', message: 'is disabled' }],
      });
    }
    if (!endpointReceives(endpoint, envelope)) {
      throw new AppError('invalid_request', `body.endpoint_id: endpoint ${endpoint.id} does not receive ${envelope.type} events of this event's owner.`, {
        errors: [{ field: 'body.endpoint_id', message: 'does not receive this event' }],
      });
    }
    endpoints = [endpoint];
  } else {
    endpoints = (await endpointsReceiving(deps, envelope)).filter((endpoint) => endpoint.status === 'active');
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
