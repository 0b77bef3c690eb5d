import type * as z from '../../kernel/zod';
import type { TransactItem } from '../../aws/dynamodb';
import { commitVersioned, withFreshReads } from '../../aws/fresh-reads';
import { ConditionsFailed, getItem, queryPage, transact, type Item, type Page } from '../../aws/store';
import type { Principal } from '../../http/principal';
import { bool, codec, int, nullable, oneOf, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import { walletKeys } from '../keys';
import { merchantRecord } from '../merchants/merchants';
import { auditItem } from '../tenancy/audit';
import { getTenantRecord } from '../tenancy/tenants';
import { CLIENT_STATUSES } from './fields';
import { catalogKeys } from './keys';
import type { client, clientCreate, clientListQuery } from './client-schemas';

/**
 * Clients: a merchant's profile in the catalog (spec part 2). A new client is `pending`; tenant
 * staff holding clients:manage approve it (`active`) or suspend it. Explore shows a client only
 * while it is active and not hidden by platform moderation; the `gsi2` keys that put it in the
 * tenant's Explore listing exist exactly then, and every transition rewrites them in the same
 * conditional update. Every change is audited in the same transaction.
 */

export type Client = z.infer<typeof client>;

export interface ClientRecord extends Client {
  tenant_id: string;
  /** Published offerings: Explore lists only clients with at least one. */
  published_count: number;
  version: number;
}

export const toClientRecord: (item: Item) => ClientRecord = codec<ClientRecord>('client', {
  id: str,
  merchant_id: str,
  org_alias: str,
  display_name: str,
  category: str,
  description: str,
  logo_url: nullable(str),
  commission_bps: int,
  status: oneOf(...CLIENT_STATUSES),
  hidden: bool,
  approved_at: nullable(str),
  created_at: str,
  updated_at: str,
  tenant_id: str,
  published_count: int,
  version: int,
});

/** A staff member's membership of a client. */
const decodeMember = codec<{ created_at: string }>('client_member', { created_at: str });

export const publicClient = (record: ClientRecord): Client => ({
  id: record.id,
  merchant_id: record.merchant_id,
  org_alias: record.org_alias,
  display_name: record.display_name,
  category: record.category,
  description: record.description,
  logo_url: record.logo_url,
  commission_bps: record.commission_bps,
  status: record.status,
  hidden: record.hidden,
  approved_at: record.approved_at,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** Visible to shoppers: active and not hidden (Explore also needs a published offering). */
export const isExplorable = (record: Pick<ClientRecord, 'status' | 'hidden'>): boolean => record.status === 'active' && !record.hidden;

const searchText = (record: Pick<ClientRecord, 'display_name' | 'org_alias' | 'description' | 'category'>) =>
  [record.display_name, record.org_alias, record.category, record.description].join(' ').toLowerCase();

/** The client of the tenant (any tenant when `tenantId` is null: platform staff). Refuses: client_not_found. */
export async function readClient(deps: StoreDeps, tenantId: string | null, clientId: string): Promise<ClientRecord> {
  const item = await getItem(deps, catalogKeys.client(clientId));
  if (!item || (tenantId !== null && item.tenant_id !== tenantId)) throw new AppError('client_not_found', `No client ${clientId}.`);
  return toClientRecord(item);
}

/**
 * Authority over a client (spec part 5 rule 3), after its existence in the caller's tenant: an API
 * key bound to it; the tenant's own unbound API key or tenant staff (or a partner administrator)
 * holding clients:manage; or a staff member of its organization. Refuses: client_not_found (none
 * in the caller's tenant), not_client_member.
 */
export async function authorizeClient(deps: StoreDeps, principal: Principal, clientId: string): Promise<ClientRecord> {
  if (!principal.tenantId) throw new AppError('client_not_found', `No client ${clientId}.`);
  const record = await readClient(deps, principal.tenantId, clientId);
  if (await hasAuthority(deps, principal, clientId)) return record;
  throw new AppError('not_client_member', `This credential has no authority over client ${clientId}.`);
}

async function hasAuthority(deps: StoreDeps, principal: Principal, clientId: string): Promise<boolean> {
  if (principal.kind === 'api_key') return principal.clientId === undefined ? principal.scopes.has('clients:manage') : principal.clientId === clientId;
  if (principal.kind !== 'tenant_staff' && principal.kind !== 'partner_admin') return false;
  if (principal.scopes.has('clients:manage')) return true;
  return (await getItem(deps, catalogKeys.member(clientId, principal.id), { projection: 'pk' })) !== undefined;
}

const actorOf = (principal: Pick<Principal, 'kind' | 'id'>) => ({ kind: principal.kind, id: principal.id });

/**
 * Onboards a client, `pending` until approved. Self-serve (clients:onboard without clients:manage):
 * a staff member who onboards becomes the organization's first member.
 * Refuses: not_found (merchant_id is not a merchant of the tenant), conflict (org_alias taken).
 */
export async function createClient(
  deps: StoreDeps,
  principal: Principal,
  tenantId: string,
  input: z.infer<typeof clientCreate>,
  requestId: string,
): Promise<Client> {
  await merchantRecord(deps, tenantId, input.merchant_id);
  const tenant = await getTenantRecord(deps, tenantId);
  const now = deps.clock.now().toISOString();
  const record: ClientRecord = {
    id: deps.ids(),
    tenant_id: tenantId,
    merchant_id: input.merchant_id,
    org_alias: input.org_alias,
    display_name: input.display_name,
    category: input.category,
    description: input.description ?? '',
    logo_url: input.logo_url ?? null,
    commission_bps: input.commission_bps ?? tenant.fees.commission.bps,
    status: 'pending',
    hidden: false,
    approved_at: null,
    created_at: now,
    updated_at: now,
    published_count: 0,
    version: 1,
  };
  const selfServe = principal.kind === 'tenant_staff' && !principal.scopes.has('clients:manage');
  const items: TransactItem[] = [
    {
      Put: {
        TableName: deps.table,
        Item: { ...catalogKeys.alias(tenantId, input.org_alias), entity: 'client_alias', client_id: record.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: deps.table,
        Item: { ...catalogKeys.client(record.id), entity: 'client', gsi1pk: catalogKeys.tenantClients(tenantId), gsi1sk: record.id, search_text: searchText(record), ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    auditItem(deps, { tenantId, actor: actorOf(principal), action: 'client.create', target: { type: 'client', id: record.id }, after: publicClient(record), requestId }),
  ];
  // A client is its merchant's profile: one per merchant (plain payments to it earn by its reward rules).
  items.push({ Put: { TableName: deps.table, Item: { ...catalogKeys.merchantClient(input.merchant_id), entity: 'merchant_client', client_id: record.id }, ConditionExpression: 'attribute_not_exists(pk)' } });
  if (selfServe) items.push(memberPut(deps, record.id, tenantId, principal.id, now));
  try {
    await transact(deps, items);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.indexes.includes(0)) {
      throw new AppError('conflict', `org_alias ${input.org_alias} is taken in this tenant.`, { errors: [{ field: 'org_alias', message: 'taken' }] });
    }
    if (error instanceof ConditionsFailed && error.indexes.includes(3)) {
      throw new AppError('conflict', `Merchant ${input.merchant_id} already has a client profile.`, { errors: [{ field: 'merchant_id', message: 'already has a client' }] });
    }
    throw error;
  }
  return publicClient(record);
}

/** The tenant's clients, newest first, optionally of one status. */
export async function listClients(deps: StoreDeps, tenantId: string, query: z.infer<typeof clientListQuery>): Promise<Page<Client>> {
  const page = await queryPage(deps, {
    index: 'gsi1',
    partition: catalogKeys.tenantClients(tenantId),
    cursor: query.cursor, created: query,
    limit: query.limit,
    ...(query.status ? { filter: { expression: '#status = :status', names: { '#status': 'status' }, values: { ':status': query.status } }, scanBudget: 1_000 } : {}),
  });
  return { data: page.items.map((item) => publicClient(toClientRecord(item))), next_cursor: page.next_cursor };
}

type ClientChange = 'approve' | 'suspend' | 'hide' | 'unhide';

/**
 * A status or moderation change, conditioned on the version read (a concurrent change makes it
 * read again). Repeating a change that already holds answers the client unchanged.
 * Refuses: client_not_found.
 */
export async function changeClient(
  deps: StoreDeps,
  principal: Principal,
  scope: { tenantId: string | null },
  clientId: string,
  change: ClientChange,
  requestId: string,
): Promise<Client> {
  return withFreshReads(async () => {
    const before = await readClient(deps, scope.tenantId, clientId);
    const after = applyChange(before, change, deps.clock.now().toISOString());
    if (after === before) return publicClient(before);
    // An update, not a whole put: offerings change published_count beside it without a version.
    await commitVersioned(
      deps,
      [
        {
          Update: {
            TableName: deps.table,
            Key: catalogKeys.client(clientId),
            UpdateExpression: `SET #status = :status, #hidden = :hidden, approved_at = :approved, updated_at = :now, version = :next${exploreKeys(after)}`,
            ConditionExpression: 'version = :version',
            ExpressionAttributeNames: { '#status': 'status', '#hidden': 'hidden' },
            ExpressionAttributeValues: {
              ':status': after.status,
              ':hidden': after.hidden,
              ':approved': after.approved_at,
              ':now': after.updated_at,
              ':next': before.version + 1,
              ':version': before.version,
              ...(isExplorable(after) ? { ':explore': catalogKeys.exploreClients(before.tenant_id), ':id': clientId } : {}),
            },
          },
        },
        auditItem(deps, {
          tenantId: before.tenant_id,
          actor: actorOf(principal),
          action: `client.${change}`,
          target: { type: 'client', id: clientId },
          before: publicClient(before),
          after: publicClient(after),
          requestId,
        }),
      ],
      [0],
    );
    return publicClient({ ...after, version: before.version + 1 });
  });
}

/** The Explore listing keys: set while the client is explorable, removed otherwise. */
const exploreKeys = (after: ClientRecord) => (isExplorable(after) ? ', gsi2pk = :explore, gsi2sk = :id' : ' REMOVE gsi2pk, gsi2sk');

function applyChange(record: ClientRecord, change: ClientChange, now: string): ClientRecord {
  switch (change) {
    case 'approve':
      return record.status === 'active' ? record : { ...record, status: 'active', approved_at: record.approved_at ?? now, updated_at: now };
    case 'suspend':
      return record.status === 'suspended' ? record : { ...record, status: 'suspended', updated_at: now };
    case 'hide':
      return record.hidden ? record : { ...record, hidden: true, updated_at: now };
    case 'unhide':
      return record.hidden ? { ...record, hidden: false, updated_at: now } : record;
  }
}

// ---------------------------------------------------------------------------------------------
// Organization membership

function memberPut(deps: StoreDeps, clientId: string, tenantId: string, staffId: string, now: string): TransactItem {
  return {
    Put: {
      TableName: deps.table,
      Item: { ...catalogKeys.member(clientId, staffId), entity: 'client_member', tenant_id: tenantId, client_id: clientId, staff_id: staffId, created_at: now },
    },
  };
}

/** A staff member of the client's tenant (tenant staff only). Refuses: not_found. */
async function tenantStaffOf(deps: StoreDeps, tenantId: string, staffId: string): Promise<void> {
  const staff = await getItem(deps, walletKeys.staff(staffId), { projection: 'tenant_id, #role', names: { '#role': 'role' } });
  if (!staff || staff.tenant_id !== tenantId || staff.role !== 'tenant_staff') throw new AppError('not_found', `No tenant staff member ${staffId}.`);
}

/** Adds a tenant staff member to the client's organization (repeating it changes nothing). Refuses: client_not_found, not_found. */
export async function addMember(deps: StoreDeps, principal: Principal, clientId: string, staffId: string, requestId: string) {
  const record = await readClient(deps, principal.tenantId ?? null, clientId);
  await tenantStaffOf(deps, record.tenant_id, staffId);
  const existing = await getItem(deps, catalogKeys.member(clientId, staffId));
  if (existing) return { member: { client_id: clientId, staff_id: staffId, created_at: decodeMember(existing).created_at }, created: false };
  const now = deps.clock.now().toISOString();
  await transact(deps, [
    memberPut(deps, clientId, record.tenant_id, staffId, now),
    auditItem(deps, { tenantId: record.tenant_id, actor: actorOf(principal), action: 'client.member_add', target: { type: 'client', id: clientId }, after: { staff_id: staffId }, requestId }),
  ]);
  return { member: { client_id: clientId, staff_id: staffId, created_at: now }, created: true };
}

/** Ends a membership: the staff member's authority over the client ends with it. Refuses: client_not_found, not_found. */
export async function removeMember(deps: StoreDeps, principal: Principal, clientId: string, staffId: string, requestId: string) {
  const record = await readClient(deps, principal.tenantId ?? null, clientId);
  const existing = await getItem(deps, catalogKeys.member(clientId, staffId));
  if (!existing) throw new AppError('not_found', `Staff member ${staffId} is not a member of client ${clientId}.`);
  try {
    await transact(deps, [
      { Delete: { TableName: deps.table, Key: catalogKeys.member(clientId, staffId), ConditionExpression: 'attribute_exists(pk)' } },
      auditItem(deps, { tenantId: record.tenant_id, actor: actorOf(principal), action: 'client.member_remove', target: { type: 'client', id: clientId }, before: { staff_id: staffId }, requestId }),
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed) throw new AppError('not_found', `Staff member ${staffId} is not a member of client ${clientId}.`);
    throw error;
  }
  return { client_id: clientId, staff_id: staffId, created_at: decodeMember(existing).created_at };
}
