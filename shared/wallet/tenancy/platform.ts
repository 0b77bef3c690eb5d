import { createHash } from 'node:crypto';
import { codec, list, nullable, obj, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { Transaction } from '../../ledger-client/contract';
import { walletKeys } from '../keys';
import { recordCrossTenantRead } from './access-log';
import type { Actor, StoreDeps, TenancyDeps, TenancyLedger } from '../deps';
import { getItem, getItems, queryPage, type Page } from '../../aws/store';
import { logger } from '../../kernel/log';
import { queuedAccessRecorder } from '../access-records';
import { decodeTenantName } from './records';
import { allTenantRecords, findTenantRecord } from './tenants';
import { toUserRecord, type User } from './users';

/**
 * Platform staff's cross-tenant reads (spec part 4 items 19 and 20). Each read is logged in the
 * cross-tenant access log before it is answered.
 */

// ---------------------------------------------------------------------------------------------
// Transactions across tenants

export interface CrossTenantTransaction {
  id: string;
  tenant_id: string;
  tenant_name: string;
  type: string;
  status: string;
  metadata: Record<string, string>;
  legs: { owner_type: string; owner_id: string; purpose: string; direction: 'debit' | 'credit'; amount: number; commodity: string }[];
  created_at: string;
}

export interface PlatformTransactionQuery {
  tenant_id?: string;
  type?: string;
  /** The id of the last transaction read; the page continues after it. */
  cursor?: string;
  limit: number;
}

/** Ledger listings read at once. */
const LEDGER_CONCURRENCY = 8;
/** Page size when a cursor must be found by reading from the newest transaction down. */
const SEEK_PAGE_SIZE = 100;

/** Where one tenant's ledger listing continues: a ledger cursor, or null for its newest transaction. */
interface LedgerPosition {
  tenant_id: string;
  tenant_name: string;
  ledger_id: string;
  cursor: string | null;
}

/** Where a page of the listing stopped in each tenant's ledger (written by ../access-records.ts). */
const decodeResumePoint = codec<{ positions: LedgerPosition[] }>('platform_transactions_cursor', {
  positions: list(obj<LedgerPosition>({ tenant_id: str, tenant_name: str, ledger_id: str, cursor: nullable(str) })),
});

/**
 * Transactions of every tenant (or one), newest first: a k-way merge by id (UUIDv7, so by time)
 * of each tenant's ledger listing, read through the ledger API.
 *
 * Cost: a first page reads one ledger page per tenant (`limit` transactions each, 8 ledgers at a
 * time), so it grows with the number of tenants. Each page that may have a successor queues where
 * every tenant's listing stopped, keyed by its last id (24 h; the access-records worker writes it,
 * so this read holds no write grant), so the next page reads again one ledger page per tenant. A cursor without a stored position (an older or mid-page id) is found by
 * reading each tenant's ledger from the newest down to it: a cost that grows with how old it is.
 * A type filter is applied by the ledger after reading, so a rare type costs more ledger pages.
 *
 * Refuses: invalid_request when the cursor is not the id of a transaction in this listing (another
 * tenant than the filter, another type, or no transaction at all).
 */
export async function listPlatformTransactions(
  deps: TenancyDeps,
  query: PlatformTransactionQuery,
  context: { actor: Actor; requestId: string },
): Promise<Page<CrossTenantTransaction>> {
  const filtersHash = createHash('sha256')
    .update(JSON.stringify([query.tenant_id ?? null, query.type ?? null]))
    .digest('base64url');
  const stored = query.cursor === undefined ? undefined : await getItem(deps, walletKeys.platformTransactionsCursor(filtersHash, query.cursor));
  const seeking = query.cursor !== undefined && !stored;
  const positions = stored ? decodeResumePoint(stored).positions : await startPositions(deps, query.tenant_id);

  const ledger = deps.ledger();
  const streams = positions.map((position) => new LedgerStream(ledger, position, { before: query.cursor, type: query.type, pageSize: seeking ? SEEK_PAGE_SIZE : query.limit }));
  await inBatches(streams, LEDGER_CONCURRENCY, (stream) => stream.head());
  if (seeking && !streams.some((stream) => stream.metCursor)) {
    throw new AppError('invalid_request', 'cursor is not the id of a transaction in this listing.', { errors: [{ field: 'query.cursor', message: 'unknown cursor' }] });
  }

  const data: CrossTenantTransaction[] = [];
  while (data.length < query.limit) {
    let newest: LedgerStream | undefined;
    for (const stream of streams) {
      const head = stream.peek();
      if (head && (!newest || head.id > newest.peek()!.id)) newest = stream;
    }
    if (!newest) break;
    data.push(crossTenant(newest.position, newest.take()));
    if (data.length < query.limit) await newest.head();
  }

  const remaining = streams.map((stream) => stream.resumeAt()).filter((position): position is LedgerPosition => position !== undefined);
  const nextCursor = data.length === query.limit && remaining.length > 0 ? data[data.length - 1]!.id : null;
  const now = deps.clock.now();
  await Promise.all([
    recordCrossTenantRead(deps, {
      actor: context.actor,
      operation: 'listPlatformTransactions',
      filters: { tenant_id: query.tenant_id, type: query.type, cursor: query.cursor, limit: query.limit },
      count: data.length,
      requestId: context.requestId,
    }),
    // A cache: if it cannot be queued (or is not written yet) the next page seeks its cursor instead.
    nextCursor &&
      queuedAccessRecorder
        .send({
          kind: 'platform_cursor',
          filters_hash: filtersHash,
          last_id: nextCursor,
          positions: remaining.map((position) => ({ tenant_id: position.tenant_id, cursor: position.cursor })),
          created_at: now.toISOString(),
        })
        .catch((error: unknown) => logger.warn('the resume point of a platform transactions page was not queued', { error: error as Error })),
  ]);
  return { data, next_cursor: nextCursor };
}

async function startPositions(deps: StoreDeps, tenantId: string | undefined): Promise<LedgerPosition[]> {
  const tenants = tenantId === undefined ? await allTenantRecords(deps) : [await findTenantRecord(deps, tenantId)].filter((t) => t !== undefined);
  return tenants.map((tenant) => ({ tenant_id: tenant.id, tenant_name: tenant.name, ledger_id: tenant.ledger_id, cursor: null }));
}

/** One tenant's ledger listing, newest first, holding the page it is in and skipping ids at or after `before`. */
class LedgerStream {
  private buffer: Transaction[] = [];
  /** The ledger cursor the buffered page was read with. */
  private pageCursor: string | null;
  /** Where the ledger's next page starts. */
  private nextCursor: string | null;
  private exhausted = false;
  /** The transaction named by `before` was in this listing. */
  metCursor = false;

  constructor(
    private readonly ledger: TenancyLedger,
    readonly position: LedgerPosition,
    private readonly options: { before?: string; type?: string; pageSize: number },
  ) {
    this.pageCursor = position.cursor;
    this.nextCursor = position.cursor;
  }

  /** The newest transaction not yet taken, reading ledger pages as needed. */
  async head(): Promise<Transaction | undefined> {
    const { before, type, pageSize } = this.options;
    while (this.buffer.length === 0 && !this.exhausted) {
      const from = this.nextCursor;
      const page = await this.ledger.listTransactions(this.position.ledger_id, { cursor: from ?? undefined, limit: pageSize, type });
      this.pageCursor = from;
      this.nextCursor = page.next_cursor;
      this.exhausted = page.next_cursor === null;
      for (const transaction of page.data) {
        if (before === undefined || transaction.id < before) this.buffer.push(transaction);
        else if (transaction.id === before) this.metCursor = true;
      }
    }
    return this.buffer[0];
  }

  peek(): Transaction | undefined {
    return this.buffer[0];
  }

  take(): Transaction {
    return this.buffer.shift()!;
  }

  /**
   * Where the next page resumes this listing: the page holding what is left of the buffer (read
   * again, it yields the same transactions; the ones taken are skipped by id), or the following page.
   */
  resumeAt(): LedgerPosition | undefined {
    if (this.buffer.length > 0) return { ...this.position, cursor: this.pageCursor };
    if (this.exhausted) return undefined;
    return { ...this.position, cursor: this.nextCursor };
  }
}

function crossTenant(position: LedgerPosition, transaction: Transaction): CrossTenantTransaction {
  return {
    id: transaction.id,
    tenant_id: position.tenant_id,
    tenant_name: position.tenant_name,
    type: transaction.type,
    status: transaction.status,
    metadata: transaction.metadata,
    legs: transaction.legs.map((leg) => ({
      owner_type: leg.owner_type,
      owner_id: leg.owner_id,
      purpose: leg.purpose,
      direction: leg.direction,
      amount: leg.amount,
      commodity: leg.commodity,
    })),
    created_at: transaction.created_at,
  };
}

async function inBatches<T>(items: readonly T[], concurrency: number, run: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

// ---------------------------------------------------------------------------------------------
// Users across tenants

export interface PlatformUser extends User {
  tenant_id: string;
  tenant_name: string;
}

/**
 * The most users one request evaluates when `q` filters them: the search is a filtered read of the
 * newest-first index, not an index of its own, so a rare match answers a short page with a
 * next_cursor rather than reading every user.
 */
export const USER_SEARCH_SCAN_BUDGET = 1_000;

/**
 * Users of every tenant (or one), newest first; `q` keeps those whose external_id contains it
 * (case-insensitive). Refuses: invalid_request (cursor of another listing).
 */
export async function listPlatformUsers(
  deps: StoreDeps,
  query: { tenant_id?: string; q?: string; cursor?: string; limit: number },
  context: { actor: Actor; requestId: string },
): Promise<Page<PlatformUser>> {
  const result = await queryPage(deps, {
    ...(query.tenant_id ? { index: 'gsi1', partition: walletKeys.tenantUsers(query.tenant_id) } : { index: 'gsi2', partition: walletKeys.usersPartition }),
    cursor: query.cursor,
    limit: query.limit,
    ...(query.q
      ? { filter: { expression: 'contains(search_external_id, :q)', values: { ':q': query.q.toLowerCase() } }, scanBudget: USER_SEARCH_SCAN_BUDGET }
      : {}),
  });
  const users = result.items.map(toUserRecord);
  const names = await tenantNames(deps, [...new Set(users.map((user) => user.tenant_id))]);
  const data = users.map((user) => ({
    id: user.id,
    tenant_id: user.tenant_id,
    tenant_name: names.get(user.tenant_id) ?? '',
    external_id: user.external_id,
    kind: user.kind,
    status: user.status,
    metadata: user.metadata,
    created_at: user.created_at,
  }));
  await recordCrossTenantRead(deps, {
    actor: context.actor,
    operation: 'listPlatformUsers',
    filters: { tenant_id: query.tenant_id, q: query.q, cursor: query.cursor, limit: query.limit },
    count: data.length,
    requestId: context.requestId,
  });
  return { data, next_cursor: result.next_cursor };
}

async function tenantNames(deps: StoreDeps, tenantIds: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  // At most 100 users per page, so at most 100 tenants: one BatchGetItem.
  const items = await getItems(deps, [...new Set(tenantIds)].map((id) => walletKeys.tenant(id)), { consistent: false, projection: 'id, #name', names: { '#name': 'name' } });
  for (const item of items) {
    if (!item) continue;
    const tenant = decodeTenantName(item);
    names.set(tenant.id, tenant.name);
  }
  return names;
}
