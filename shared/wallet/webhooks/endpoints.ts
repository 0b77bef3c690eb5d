import { randomBytes } from 'node:crypto';
import type { Principal } from '../../http/principal';
import { epochSeconds } from '../../kernel/clock';
import { bool, codec, nullable, oneOf, opt, str, strList } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { standardWebhooksSecret } from '../../events/signature';
import type { EventEnvelope } from '../../events/outbox';
import { auditItem } from '../tenancy/audit';
import type { Actor, StoreDeps } from '../deps';
import { ConditionsFailed, getItem, queryAll, queryPage, transact, type Page } from '../../aws/store';
import { POLICIES, retrying } from '../../kernel/retry';
import { webhookKeys, type Owner } from './keys';
import { endpointReceives } from './matching';
import type { Endpoint, EndpointCreate, EndpointPatch, EndpointWithSecret } from './schemas';
import { checkEndpointUrl } from './urls';

/**
 * Webhook endpoints (spec part 2 "Webhook endpoint", part 4 item 22): a tenant's own, or a
 * merchant's (one client of the tenant). The secret is generated here, returned once by create
 * and never again; deleting an endpoint erases its secret, so its pending retries stop at their
 * next attempt (the delivery worker checks the endpoint first).
 */

/** Live endpoints per owner (the tenant, or each client), as Stripe allows per account. */
export const MAX_ENDPOINTS_PER_OWNER = 16;
/** A deleted endpoint stays readable by its deliveries for as long as the delivery history. */
export const DELETED_ENDPOINT_RETENTION_SECONDS = 30 * 86_400;

export interface EndpointRecord {
  pk: string;
  sk: string;
  entity: 'webhook_endpoint';
  id: string;
  tenant_id: string;
  client_id: string | null;
  url: string;
  event_filters: string[] | null;
  description: string | null;
  status: EndpointStatus;
  livemode: boolean;
  /** Absent once deleted. */
  secret?: string;
  /** The secret before the last rotation, still signing until `previous_secret_expires_at` (./rotation.ts). */
  previous_secret?: string;
  previous_secret_expires_at?: string;
  /** Set while disabled (./health.ts): a 410 Gone, or every attempt failing for days. */
  disabled_at?: string;
  disabled_reason?: DisableReason;
  created_at: string;
  updated_at: string;
}

/** Live endpoints are `active` (delivered to) or `disabled` (their events kept as skipped deliveries). */
export type EndpointStatus = 'active' | 'disabled' | 'deleted';
export type DisableReason = 'gone' | 'failing';

/** The endpoint item's codec; its keys come with it (changes are written to `pk`, `sk`). */
export const toEndpointRecord = codec<EndpointRecord>('webhook_endpoint', {
  pk: str,
  sk: str,
  entity: oneOf('webhook_endpoint'),
  id: str,
  tenant_id: str,
  client_id: nullable(str),
  url: str,
  event_filters: nullable(strList),
  description: nullable(str),
  status: oneOf('active', 'disabled', 'deleted'),
  livemode: bool,
  secret: opt(str),
  previous_secret: opt(str),
  previous_secret_expires_at: opt(str),
  disabled_at: opt(str),
  disabled_reason: opt(oneOf('gone', 'failing')),
  created_at: str,
  updated_at: str,
});

/**
 * A new signing secret: `whsec_` + standard base64 of 32 random bytes, the form Standard Webhooks
 * verifiers decode (their key: the bytes), while X-Wallet-Signature is keyed by the string as shown.
 * Secrets issued before were base64url (shared/events/signature.ts keeps signing them as before).
 */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The answer that shows a secret, once. `standard_webhooks_secret` (deprecated) is the same key in
 * the Standard Webhooks format: for a secret issued now, the same string as `secret`.
 */
export const withSecret = (record: EndpointRecord, secret: string): EndpointWithSecret => ({
  ...publicEndpoint(record),
  secret,
  standard_webhooks_secret: standardWebhooksSecret(secret),
});

export const publicEndpoint = (record: EndpointRecord): Endpoint => ({
  id: record.id,
  ...(record.client_id ? { client_id: record.client_id } : {}),
  url: record.url,
  // Absent, never null, when the endpoint receives every event (spec part 2).
  ...(record.event_filters ? { event_filters: record.event_filters } : {}),
  description: record.description,
  status: record.status,
  livemode: record.livemode,
  ...(record.previous_secret_expires_at ? { previous_secret_expires_at: record.previous_secret_expires_at } : {}),
  ...(record.status === 'disabled' && record.disabled_at ? { disabled_at: record.disabled_at, disabled_reason: record.disabled_reason ?? 'failing' } : {}),
  created_at: record.created_at,
});

/** The audit record of a change to a live endpoint (without secrets), for the change's transaction. */
export const endpointAudit = (
  deps: Pick<StoreDeps, 'table' | 'clock' | 'ids'>,
  change: { actor: Actor; action: string; before: EndpointRecord; after: EndpointRecord; requestId: string; details?: Record<string, unknown> },
) =>
  auditItem(deps, {
    tenantId: change.before.tenant_id,
    actor: { kind: change.actor.kind, id: change.actor.id },
    action: `webhook_endpoint.${change.action}`,
    target: { type: 'webhook_endpoint', id: change.before.id },
    before: publicEndpoint(change.before),
    after: { ...publicEndpoint(change.after), ...change.details },
    requestId: change.requestId,
  });

export const ownerOf = (record: Pick<EndpointRecord, 'tenant_id' | 'client_id'>): Owner => ({
  tenantId: record.tenant_id,
  ...(record.client_id ? { clientId: record.client_id } : {}),
});

/**
 * Whether endpoints this principal creates are live: a sandbox credential makes sandbox endpoints
 * (which may use http, and reach loopback where the deployment opens it); staff act live.
 */
export const livemodeOf = (principal: Pick<Principal, 'sandbox'>): boolean => principal.sandbox !== true;

const invalid = (field: string, message: string) => new AppError('invalid_request', `${field}: ${message}`, { errors: [{ field, message }] });

/**
 * Creates an endpoint with a new secret, counted against the owner's limit and audited in the
 * same transaction. Refuses: invalid_request (URL not acceptable for the mode, the owner already
 * has MAX_ENDPOINTS_PER_OWNER).
 */
export async function createEndpoint(
  deps: StoreDeps,
  owner: Owner,
  input: EndpointCreate,
  context: { actor: Actor; requestId: string; livemode: boolean },
): Promise<EndpointWithSecret> {
  const url = checkEndpointUrl(input.url, { livemode: context.livemode });
  if (!url.ok) throw invalid('body.url', url.reason);
  const filters = input.event_filters ? [...new Set(input.event_filters)] : null;
  // A merchant endpoint's filters are kept as given: it receives only its families whatever they
  // say (spec part 6), which matching.ts enforces at delivery.
  const now = deps.clock.now().toISOString();
  const id = deps.ids();
  const secret = newSecret();
  const record: EndpointRecord = {
    ...webhookKeys.endpoint(id),
    entity: 'webhook_endpoint',
    id,
    tenant_id: owner.tenantId,
    client_id: owner.clientId ?? null,
    url: url.url.href,
    event_filters: filters,
    description: input.description ?? null,
    status: 'active',
    livemode: context.livemode,
    secret,
    created_at: now,
    updated_at: now,
  };
  try {
    await transact(deps, [
      { Put: { TableName: deps.table, Item: { ...record, gsi1pk: webhookKeys.endpointsOf(owner), gsi1sk: id }, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Update: {
          TableName: deps.table,
          Key: webhookKeys.endpointCount(owner),
          UpdateExpression: 'ADD live :one',
          ConditionExpression: 'attribute_not_exists(live) OR live < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': MAX_ENDPOINTS_PER_OWNER },
        },
      },
      auditItem(deps, {
        tenantId: owner.tenantId,
        actor: context.actor,
        action: 'webhook_endpoint.create',
        target: { type: 'webhook_endpoint', id },
        after: publicEndpoint(record),
        requestId: context.requestId,
      }),
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.indexes.includes(1)) {
      throw new AppError('invalid_request', `At most ${MAX_ENDPOINTS_PER_OWNER} webhook endpoints; delete one first.`);
    }
    throw error;
  }
  return withSecret(record, secret);
}

/** The owner's live endpoints, newest first; never a secret. Refuses: invalid_request (cursor). */
export async function listEndpoints(deps: StoreDeps, owner: Owner, page: { cursor?: string; limit: number }): Promise<Page<Endpoint>> {
  const result = await queryPage(deps, { index: 'gsi1', partition: webhookKeys.endpointsOf(owner), cursor: page.cursor, limit: page.limit });
  return { data: result.items.map((item) => publicEndpoint(toEndpointRecord(item))), next_cursor: result.next_cursor };
}

/** Every live endpoint of the owner (at most MAX_ENDPOINTS_PER_OWNER), disabled ones included, newest first, without secrets. */
export async function listLiveEndpoints(deps: StoreDeps, owner: Owner): Promise<Endpoint[]> {
  const live = await liveEndpointsOf(deps, owner);
  return live.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map(publicEndpoint);
}

/** An endpoint of exactly this owner, live or deleted; another owner's looks missing. */
export async function getEndpointRecord(deps: StoreDeps, endpointId: string): Promise<EndpointRecord | undefined> {
  const item = await getItem(deps, webhookKeys.endpoint(endpointId));
  return item && toEndpointRecord(item);
}

const owns = (owner: Owner, record: EndpointRecord) => record.tenant_id === owner.tenantId && (record.client_id ?? undefined) === owner.clientId;

export const isLive = (record: Pick<EndpointRecord, 'status'>): boolean => record.status === 'active' || record.status === 'disabled';

/** A live endpoint (active or disabled) of exactly this owner. Refuses: not_found (unknown, another owner's, deleted). */
export async function liveEndpointOf(deps: StoreDeps, owner: Owner, endpointId: string): Promise<EndpointRecord> {
  const record = await getEndpointRecord(deps, endpointId);
  if (!record || !owns(owner, record) || !isLive(record)) throw new AppError('not_found', `No webhook endpoint ${endpointId}.`);
  return record;
}

/** A live endpoint of exactly this owner, without its secret. Refuses: not_found (unknown, another owner's, deleted). */
export async function getEndpoint(deps: StoreDeps, owner: Owner, endpointId: string): Promise<Endpoint> {
  return publicEndpoint(await liveEndpointOf(deps, owner, endpointId));
}

/**
 * Changes a live endpoint's url, filters or description, audited in the same transaction. A new
 * url passes the checks of creation for the endpoint's own mode (a sandbox endpoint stays one).
 * Conditioned on the version read, so the audit's before is what was changed. Refuses:
 * invalid_request (the url), not_found (unknown, another owner's, deleted).
 */
export async function updateEndpoint(deps: StoreDeps, owner: Owner, endpointId: string, patch: EndpointPatch, context: { actor: Actor; requestId: string }): Promise<Endpoint> {
  return retrying(POLICIES.contended, async () => {
    const before = await liveEndpointOf(deps, owner, endpointId);
    const after: EndpointRecord = { ...before, updated_at: deps.clock.now().toISOString() };
    if (patch.url !== undefined) {
      const url = checkEndpointUrl(patch.url, { livemode: before.livemode });
      if (!url.ok) throw invalid('body.url', url.reason);
      after.url = url.url.href;
    }
    if (patch.event_filters !== undefined) after.event_filters = patch.event_filters === null ? null : [...new Set(patch.event_filters)];
    if (patch.description !== undefined) after.description = patch.description;
    await transact(deps, [
      {
        Update: {
          TableName: deps.table,
          Key: webhookKeys.endpoint(endpointId),
          UpdateExpression: 'SET #url = :url, event_filters = :filters, description = :description, updated_at = :now',
          ConditionExpression: '#status IN (:active, :disabled) AND updated_at = :seen',
          ExpressionAttributeNames: { '#url': 'url', '#status': 'status' },
          ExpressionAttributeValues: {
            ':url': after.url,
            ':filters': after.event_filters,
            ':description': after.description,
            ':now': after.updated_at,
            ':seen': before.updated_at,
            ':active': 'active',
            ':disabled': 'disabled',
          },
        },
      },
      endpointAudit(deps, { actor: context.actor, action: 'update', before, after, requestId: context.requestId }),
    ]);
    return publicEndpoint(after);
  }, {
    // Changed (or deleted) meanwhile: read it again; a deleted one is not_found.
    retryable: (error) => error instanceof ConditionsFailed && error.indexes.includes(0),
    exhausted: () => new AppError('service_unavailable', 'The webhook endpoint kept changing under this request; retry it.'),
  });
}

/**
 * Deletes a live endpoint: status `deleted`, the secret erased, out of the listing, kept 30 days
 * for its delivery history; audited in the same transaction. Its pending retries stop at their
 * next attempt. Refuses: not_found (unknown, another owner's, already deleted).
 */
export async function deleteEndpoint(deps: StoreDeps, owner: Owner, endpointId: string, context: { actor: Actor; requestId: string }): Promise<Endpoint> {
  const record = await liveEndpointOf(deps, owner, endpointId);
  const missing = () => new AppError('not_found', `No webhook endpoint ${endpointId}.`);
  const now = deps.clock.now();
  const after: EndpointRecord = { ...record, status: 'deleted', updated_at: now.toISOString() };
  delete after.secret;
  delete after.previous_secret;
  delete after.previous_secret_expires_at;
  try {
    await transact(deps, [
      {
        Update: {
          TableName: deps.table,
          Key: webhookKeys.endpoint(endpointId),
          UpdateExpression:
            'SET #status = :deleted, updated_at = :now, deleted_at = :now, expires_at_epoch = :expires REMOVE secret, previous_secret, previous_secret_expires_at, gsi1pk, gsi1sk',
          ConditionExpression: '#status IN (:active, :disabled)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':deleted': 'deleted',
            ':active': 'active',
            ':disabled': 'disabled',
            ':now': after.updated_at,
            ':expires': epochSeconds(now) + DELETED_ENDPOINT_RETENTION_SECONDS,
          },
        },
      },
      { Update: { TableName: deps.table, Key: webhookKeys.endpointCount(owner), UpdateExpression: 'ADD live :minus', ExpressionAttributeValues: { ':minus': -1 } } },
      endpointAudit(deps, { actor: context.actor, action: 'delete', before: record, after, requestId: context.requestId }),
    ]);
  } catch (error) {
    // Deleted concurrently: the other request answered it.
    if (error instanceof ConditionsFailed && error.indexes.includes(0)) throw missing();
    throw error;
  }
  return publicEndpoint(after);
}

/**
 * An owner's live endpoints with their secrets, disabled ones included: the relay keeps a disabled
 * endpoint's events as skipped deliveries; redelivery sends to active ones only.
 */
export async function liveEndpointsOf(deps: StoreDeps, owner: Owner): Promise<EndpointRecord[]> {
  const found: EndpointRecord[] = [];
  const items = queryAll(deps, {
    IndexName: 'gsi1',
    // Only live endpoints are in the owner's index: deleting one removes its index keys.
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': webhookKeys.endpointsOf(owner) },
  });
  for await (const item of items) found.push(toEndpointRecord(item));
  return found;
}

/**
 * Every live endpoint (active or disabled) that receives the event: the tenant's own, and for a
 * merchant event the client's. `cache` (per relay batch) keeps one query per owner.
 */
export async function endpointsReceiving(
  deps: StoreDeps,
  event: Pick<EventEnvelope, 'tenant_id' | 'client_id' | 'type'>,
  cache: Map<string, Promise<EndpointRecord[]>> = new Map(),
): Promise<EndpointRecord[]> {
  const owners: Owner[] = [{ tenantId: event.tenant_id }];
  if (event.client_id) owners.push({ tenantId: event.tenant_id, clientId: event.client_id });
  const lists = await Promise.all(
    owners.map((owner) => {
      const key = webhookKeys.endpointsOf(owner);
      let list = cache.get(key);
      if (!list) {
        list = liveEndpointsOf(deps, owner);
        // A failed read must not poison the rest of the batch.
        list.catch(() => cache.delete(key));
        cache.set(key, list);
      }
      return list;
    }),
  );
  return lists.flat().filter((endpoint) => endpointReceives(endpoint, event));
}
