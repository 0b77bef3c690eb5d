import { AppError } from '../../kernel/errors';
import { walletKeys } from '../keys';
import { auditItem } from './audit';
import type { Actor, StoreDeps, TenancyDeps } from '../deps';
import { openAccountOnce } from './ledger-accounts';
import { EXTERNAL_ID_PATTERN, USER_KINDS, type UserKind } from './user-fields';
import { ConditionsFailed, getItem, isConditionalCheckFailed, putItem, queryPage, transact, type Page, type CreatedRange } from '../../aws/store';
import { decodeUser, type UserRecord } from './records';
import { getTenantRecord } from './tenants';

/**
 * Wallet users (spec part 4 items 20 and 23). A user belongs to one tenant and is known to it by an
 * `external_id`, unique in the tenant. Every user has a cash account in the tenant's ledger,
 * opened before the user row commits, so a committed user always has somewhere to hold money.
 */

/** What the API shows of a user. */
export interface User {
  id: string;
  external_id: string;
  kind: UserKind;
  status: 'active';
  metadata: Record<string, string>;
  created_at: string;
}

export const publicUser = (record: UserRecord): User => ({
  id: record.id,
  external_id: record.external_id,
  kind: record.kind,
  status: record.status,
  metadata: record.metadata,
  created_at: record.created_at,
});

export interface CreateUserOptions {
  actor: Actor;
  requestId: string;
  /**
   * What an existing external_id answers: `conflict` (the API: 409 naming the existing id) or
   * `return` (the IdP first-contact path: the existing user, `created: false`).
   */
  ifExists?: 'conflict' | 'return';
}

/**
 * Creates a user: reserves the external_id (the uniqueness item, holding the new id as
 * `pending_user_id`), opens the user's cash account in the tenant's ledger (owner_type `user`,
 * purpose `cash`, the tenant's currency, floor 0; the idempotency key derives from the
 * external_id), then commits the user row, the uniqueness item's `user_id` and the audit record
 * in one transaction. A retry after a failure resumes the reserved id, so it opens no second account.
 * `user_id` on the uniqueness item appears only at that commit: token minting reads it.
 * Refuses: invalid_request (external_id, kind), tenant_not_found, conflict (external_id taken).
 */
export async function createUser(
  deps: TenancyDeps,
  tenantId: string,
  input: { external_id: string; kind?: UserKind; metadata?: Record<string, string> },
  options: CreateUserOptions,
): Promise<{ user: User; created: boolean }> {
  const externalId = input.external_id;
  const kind = input.kind ?? 'consumer';
  if (!EXTERNAL_ID_PATTERN.test(externalId)) {
    throw new AppError('invalid_request', 'external_id must be 1 to 200 of A-Z a-z 0-9 . _ : @ -', { errors: [{ field: 'external_id', message: 'invalid external_id' }] });
  }
  if (!USER_KINDS.includes(kind)) throw new AppError('invalid_request', `kind must be one of ${USER_KINDS.join(', ')}.`, { errors: [{ field: 'kind', message: 'unknown kind' }] });
  const tenant = await getTenantRecord(deps, tenantId);
  const uniqueKey = walletKeys.userExternal(tenantId, externalId);
  const existing = (userId: string) => existingUser(deps, tenantId, externalId, userId, options.ifExists ?? 'conflict');

  let userId = deps.ids();
  const now = deps.clock.now().toISOString();
  try {
    await putItem(deps, { ...uniqueKey, entity: 'user_external', tenant_id: tenantId, external_id: externalId, pending_user_id: userId, created_at: now }, { condition: 'attribute_not_exists(pk)' });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const reserved = await getItem(deps, uniqueKey);
    if (typeof reserved?.user_id === 'string') return existing(reserved.user_id);
    if (typeof reserved?.pending_user_id !== 'string') throw new AppError('service_unavailable', 'The user is being created concurrently; retry the request.');
    // An earlier attempt stopped before its commit (or runs now): continue with its id.
    userId = reserved.pending_user_id;
  }

  const cashAccountId = await openAccountOnce(
    deps.ledger(),
    tenant.ledger_id,
    { owner_type: 'user', owner_id: userId, purpose: 'cash', commodity: tenant.currency, floor: 0 },
    `user-cash:${externalId}`,
  );
  const record: UserRecord = {
    id: userId,
    tenant_id: tenantId,
    external_id: externalId,
    kind,
    status: 'active',
    metadata: input.metadata ?? {},
    cash_account_id: cashAccountId,
    created_at: now,
    updated_at: now,
  };
  try {
    await transact(deps, [
      {
        Put: {
          TableName: deps.table,
          Item: {
            ...walletKeys.user(userId),
            ...walletKeys.userIndexes(tenantId, userId),
            entity: 'user',
            ...record,
            // Lower-cased copy for the platform's free-text search.
            search_external_id: externalId.toLowerCase(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: deps.table,
          Key: uniqueKey,
          UpdateExpression: 'SET user_id = :id REMOVE pending_user_id',
          ConditionExpression: 'pending_user_id = :id',
          ExpressionAttributeValues: { ':id': userId },
        },
      },
      auditItem(deps, { tenantId, actor: options.actor, action: 'user.create', target: { type: 'user', id: userId }, after: publicUser(record), requestId: options.requestId }),
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    // A concurrent request for the same external_id committed first.
    const reserved = await getItem(deps, uniqueKey);
    if (typeof reserved?.user_id === 'string') return existing(reserved.user_id);
    throw error;
  }
  return { user: publicUser(record), created: true };
}

async function existingUser(deps: StoreDeps, tenantId: string, externalId: string, userId: string, ifExists: 'conflict' | 'return'): Promise<{ user: User; created: boolean }> {
  if (ifExists === 'conflict') throw new AppError('conflict', `A user with external_id ${externalId} exists: ${userId}.`);
  return { user: publicUser(await getUserRecord(deps, tenantId, userId)), created: false };
}

/** The committed user with this external_id in the tenant, if any. */
export async function findUserByExternalId(deps: StoreDeps, tenantId: string, externalId: string): Promise<UserRecord | undefined> {
  if (!EXTERNAL_ID_PATTERN.test(externalId)) return undefined;
  const unique = await getItem(deps, walletKeys.userExternal(tenantId, externalId));
  if (typeof unique?.user_id !== 'string') return undefined;
  return findUserRecord(deps, tenantId, unique.user_id);
}

async function findUserRecord(deps: StoreDeps, tenantId: string, userId: string): Promise<UserRecord | undefined> {
  const item = await getItem(deps, walletKeys.user(userId));
  // Another tenant's user is as missing as an unknown one.
  return item && item.tenant_id === tenantId ? toUserRecord(item) : undefined;
}

/** The tenant's user, with internal fields. Refuses: user_not_found (also another tenant's user). */
export async function getUserRecord(deps: StoreDeps, tenantId: string, userId: string): Promise<UserRecord> {
  const record = await findUserRecord(deps, tenantId, userId);
  if (!record) throw new AppError('user_not_found', `No user ${userId}.`);
  return record;
}

/**
 * The tenant's user; `selfOnly` (a user token's own user id) confines the read to that user.
 * Refuses: user_not_found (unknown, another tenant's, or another user for a user token).
 */
export async function getUser(deps: StoreDeps, tenantId: string, userId: string, options: { selfOnly?: string } = {}): Promise<User> {
  if (options.selfOnly !== undefined && options.selfOnly !== userId) throw new AppError('user_not_found', `No user ${userId}.`);
  return publicUser(await getUserRecord(deps, tenantId, userId));
}

/**
 * The tenant's users, newest first; `externalId` keeps the one user with that external_id (read
 * through its uniqueness item: two gets, no scan); `selfOnly` lists just that user.
 * Refuses: invalid_request (cursor).
 */
export async function listUsers(deps: StoreDeps, tenantId: string, page: { cursor?: string; limit: number; externalId?: string; selfOnly?: string } & CreatedRange): Promise<Page<User>> {
  if (page.selfOnly !== undefined || page.externalId !== undefined) {
    const found = page.externalId !== undefined ? await findUserByExternalId(deps, tenantId, page.externalId) : await findUserRecord(deps, tenantId, page.selfOnly!);
    const visible = found !== undefined && (page.selfOnly === undefined || found.id === page.selfOnly);
    return { data: visible ? [publicUser(found)] : [], next_cursor: null };
  }
  const result = await queryPage(deps, { index: 'gsi1', partition: walletKeys.tenantUsers(tenantId), cursor: page.cursor, created: page, limit: page.limit });
  return { data: result.items.map((item) => publicUser(toUserRecord(item))), next_cursor: result.next_cursor };
}

/** The user row's codec (./records.ts). */
export const toUserRecord = decodeUser;
