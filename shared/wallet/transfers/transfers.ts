import { codec, int, nullable, oneOf, orElse, str, strMap } from '../../kernel/codec';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import { eventKeys, outboxItem } from '../../events/outbox';
import { decodeCursor, encodeCursor } from '../../http/cursor';
import type { Transaction } from '../../ledger-client/contract';
import type { StoreDeps } from '../deps';
import { computeFee, type FeeRule } from '../tenancy/fees';
import { getItem, getItems, queryPage, type Page, type CreatedRange } from '../../aws/store';
import { collectionPage } from '../../aws/merged-pages';
import { toTenantRecord } from '../tenancy/tenants';
import { getUserRecord, toUserRecord } from '../tenancy/users';
import { walletKeys } from '../keys';
import { defineOperation, operationEvent } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import type { Outcome } from '../../http/outcome';
import type { WalletDeps } from '../deps';
import { transferKeys } from './keys';
import { effectiveLimitsOf, limitClaims, type LimitClaim } from './limits';

/**
 * P2P transfers (spec part 1, part 6 `transfer.completed`): one user's cash to another's in the
 * tenant's ledger, as ONE ledger posting (sender, receiver and the tenant's revenue account for
 * the fee, with the sender's limit claims), run as a saga (shared/wallet/saga.ts) so a retry
 * or the sweeper finishes a transfer a crash left between the ledger and the wallet, and the
 * transfer record and its event commit together.
 *
 * The fee comes from the tenant's `p2p` rule and is paid by the sender on top of the amount: the
 * receiver gets exactly `amount`, the sender is debited `amount + fee`, revenue is credited `fee`.
 */

/** The largest amount one ledger leg may carry (the ledger's MAX_LEG_AMOUNT, 2^45). */
export const MAX_TRANSFER_DEBIT = 2 ** 45;

export interface TransferRequest {
  from_user_id: string;
  to_user_id: string;
  amount: number;
  description: string | null;
  metadata: Record<string, string>;
}

export interface Transfer {
  id: string;
  from_user_id: string;
  to_user_id: string;
  amount: number;
  fee: number;
  currency: string;
  status: 'completed';
  description: string | null;
  metadata: Record<string, string>;
  ledger_transaction_id: string;
  created_at: string;
}

/** What a transfer fixes when it starts, reused unchanged by every resume (runOperation's `pinned`). */
export interface TransferQuote {
  ledger_id: string;
  currency: string;
  from_account_id: string;
  to_account_id: string;
  revenue_account_id: string;
  fee: number;
  claims: LimitClaim[];
}

export interface TransferAmounts {
  fee: number;
  /** What leaves the sender's cash account: amount + fee. */
  sender_debit: number;
  /** What the receiver gets: the amount, whole. */
  receiver_credit: number;
  /** What the tenant earns: the fee. */
  revenue_credit: number;
}

/** The money of a transfer of `amount` under the tenant's p2p rule. Pure. */
export function transferAmounts(rule: FeeRule, amount: number): TransferAmounts {
  const fee = computeFee(rule, amount);
  return { fee, sender_debit: amount + fee, receiver_credit: amount, revenue_credit: fee };
}

/** The ledger legs of a transfer; the revenue leg only when there is a fee (a leg is at least 1). Pure. */
export function transferLegs(quote: Pick<TransferQuote, 'currency' | 'from_account_id' | 'to_account_id' | 'revenue_account_id'>, amounts: TransferAmounts) {
  const leg = (account_id: string, direction: 'debit' | 'credit', amount: number) => ({ account_id, direction, amount, commodity: quote.currency });
  return [
    leg(quote.from_account_id, 'debit', amounts.sender_debit),
    leg(quote.to_account_id, 'credit', amounts.receiver_credit),
    ...(amounts.revenue_credit > 0 ? [leg(quote.revenue_account_id, 'credit', amounts.revenue_credit)] : []),
  ];
}

export const TRANSFER_OPERATION = defineOperation('transfer.create', async ({ runtime, tenantId, operationId, request, pinned, startedAt }) => {
  const input = request as TransferRequest;
  if (!pinned) throw new Error('a transfer operation was stored without its quote');
  const quote = pinned as TransferQuote;
  const amounts: TransferAmounts = { fee: quote.fee, sender_debit: input.amount + quote.fee, receiver_credit: input.amount, revenue_credit: quote.fee };
  return {
    post: (ledgerKey) =>
      runtime.ledger().post(
        quote.ledger_id,
        {
          type: 'transfer',
          reference_id: operationId,
          metadata: { transfer_id: operationId },
          legs: transferLegs(quote, amounts),
          ...(quote.claims.length > 0 ? { limit_claims: quote.claims } : {}),
        },
        ledgerKey,
      ),
    commit: async (posted) => {
      const transaction = posted as Transaction;
      // The transfer's id is the operation's: every resume writes the same record, at most once.
      const stored: Transfer = {
        id: operationId,
        from_user_id: input.from_user_id,
        to_user_id: input.to_user_id,
        amount: input.amount,
        fee: quote.fee,
        currency: quote.currency,
        status: 'completed',
        description: input.description,
        metadata: input.metadata,
        ledger_transaction_id: transaction.id,
        created_at: startedAt,
      };
      // As every reader of the record shows it (its metadata in key order): a retry answers from the record.
      const transfer = toTransfer({ ...stored });
      const event = outboxItem(runtime, { type: 'transfer.completed', tenantId, data: { transfer } }, operationEvent({ operationId, startedAt }));
      return {
        items: [
          {
            Put: {
              TableName: runtime.table,
              Item: {
                ...transferKeys.transfer(tenantId, transfer.id),
                ...transferKeys.userIndexes(transfer.id, transfer.from_user_id, transfer.to_user_id),
                entity: 'transfer',
                tenant_id: tenantId,
                ...transfer,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          event.item,
        ],
        status: 201,
        body: transfer,
      };
    },
  };
}, {
  // The transfer and its event are new items keyed by the operation: no transaction, and no answer
  // written after them; a retry answers from the transfer.
  creates: {
    keys: ({ tenantId, operationId, startedAt }) => [transferKeys.transfer(tenantId, operationId), eventKeys.event(tenantId, operationEvent({ operationId, startedAt }).id)],
    answer: ([transfer]) => ({ status: 201, body: toTransfer(transfer!) }),
  },
});

export interface TransferInput {
  /** A user token's own user when omitted. */
  from_user_id?: string;
  to_user_id: string;
  amount: number;
  description?: string;
  metadata?: Record<string, string>;
}

/**
 * Moves `amount` from one user of the tenant to another, once per Idempotency-Key: a retry with
 * the same key and body answers the first answer byte for byte (refusals included).
 * Refuses: invalid_request (no sender named by a tenant credential, sender is the receiver, amount
 * plus fee above one ledger leg), user_not_found (either user unknown or another tenant's, or a
 * sender other than a user token's own user), insufficient_funds, limit_exceeded, account_frozen,
 * account_closed (the ledger's refusals, remembered under the key), idempotency_key_reuse,
 * idempotency_in_flight and service_unavailable (retry with the same key).
 */
export async function createTransfer(
  runtime: WalletDeps,
  principal: Principal,
  tenantId: string,
  input: TransferInput,
  options: { idempotencyKey: string; requestId: string },
  faults: SagaFaults = {},
): Promise<Outcome> {
  const fromUserId = input.from_user_id ?? principal.userId;
  if (fromUserId === undefined) {
    throw new AppError('invalid_request', 'from_user_id is required.', { errors: [{ field: 'from_user_id', message: 'required' }] });
  }
  // A user token moves only its own money: another sender looks missing, never forbidden.
  if (principal.userId !== undefined && fromUserId !== principal.userId) throw new AppError('user_not_found', `No user ${fromUserId}.`);
  if (fromUserId === input.to_user_id) {
    throw new AppError('invalid_request', 'A transfer needs two different users.', { errors: [{ field: 'to_user_id', message: 'same as the sender' }] });
  }
  const request: TransferRequest = {
    from_user_id: fromUserId,
    to_user_id: input.to_user_id,
    amount: input.amount,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  };
  const quote = await quoteTransfer(runtime, tenantId, request);
  return runOperation(runtime, { operation: TRANSFER_OPERATION, tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned: quote }, faults);
}

/**
 * Reads what the posting needs (the tenant, both users, the sender's limits: one BatchGetItem)
 * and fixes the fee and the limit windows. Refuses: tenant_not_found, user_not_found, invalid_request.
 */
async function quoteTransfer(deps: StoreDeps, tenantId: string, request: TransferRequest): Promise<TransferQuote> {
  const [tenantItem, fromItem, toItem, tenantLimits, userLimits] = await getItems(deps, [
    walletKeys.tenant(tenantId),
    walletKeys.user(request.from_user_id),
    walletKeys.user(request.to_user_id),
    transferKeys.tenantLimits(tenantId),
    transferKeys.userLimits(request.from_user_id),
  ]);
  if (!tenantItem) throw new AppError('tenant_not_found', `No tenant ${tenantId}.`);
  const tenant = toTenantRecord(tenantItem);
  // Another tenant's user is as missing as an unknown one.
  const userOf = (item: Record<string, unknown> | undefined, userId: string) => {
    if (!item || item.tenant_id !== tenantId) throw new AppError('user_not_found', `No user ${userId}.`);
    return toUserRecord(item);
  };
  const from = userOf(fromItem, request.from_user_id);
  const to = userOf(toItem, request.to_user_id);
  const limits = effectiveLimitsOf(tenantLimits, userLimits);
  const amounts = transferAmounts(tenant.fees.p2p, request.amount);
  if (amounts.sender_debit > MAX_TRANSFER_DEBIT) {
    throw new AppError('invalid_request', `amount plus its fee (${amounts.fee}) must not exceed ${MAX_TRANSFER_DEBIT}.`, { errors: [{ field: 'amount', message: 'too large' }] });
  }
  return {
    ledger_id: tenant.ledger_id,
    currency: tenant.currency,
    from_account_id: from.cash_account_id,
    to_account_id: to.cash_account_id,
    revenue_account_id: tenant.accounts.revenue,
    fee: amounts.fee,
    claims: limitClaims(limits.p2p, from.id, request.amount, deps.clock.now()),
  };
}

/**
 * One transfer of the tenant; `selfOnly` (a user token's user) sees only transfers it sent or
 * received. Refuses: not_found (unknown, another tenant's, or not the user's).
 */
export async function getTransfer(deps: StoreDeps, tenantId: string, transferId: string, options: { selfOnly?: string } = {}): Promise<Transfer> {
  const item = (await getItem(deps, transferKeys.transfer(tenantId, transferId))) ?? (await getItem(deps, transferKeys.legacy(transferId)));
  const visible = item && item.tenant_id === tenantId && (options.selfOnly === undefined || item.from_user_id === options.selfOnly || item.to_user_id === options.selfOnly);
  if (!visible) throw new AppError('not_found', `No transfer ${transferId}.`);
  return toTransfer(item);
}

/**
 * The tenant's transfers, newest first, or with `user_id` (always, for a user token) those the
 * user sent or received. Refuses: user_not_found (an unknown user, or another user for a user
 * token), invalid_request (cursor).
 */
export async function listTransfers(
  deps: StoreDeps,
  tenantId: string,
  query: { cursor?: string; limit: number; user_id?: string } & CreatedRange,
  options: { selfOnly?: string } = {},
): Promise<Page<Transfer>> {
  const userId = query.user_id ?? options.selfOnly;
  if (options.selfOnly !== undefined && userId !== options.selfOnly) throw new AppError('user_not_found', `No user ${userId}.`);
  if (userId === undefined) {
    const page = await collectionPage(deps, transferKeys.tenantTransfers(tenantId), { binding: { listing: 'transfers', owner: tenantId }, cursor: query.cursor, created: query, limit: query.limit });
    return { data: page.items.map(toTransfer), next_cursor: page.next_cursor };
  }
  await getUserRecord(deps, tenantId, userId);
  return listUserTransfers(deps, userId, query.cursor, query.limit, query);
}

/** Sent and received merged by id, newest first; the cursor is the last id returned. */
async function listUserTransfers(deps: StoreDeps, userId: string, cursor: string | undefined, limit: number, created: CreatedRange): Promise<Page<Transfer>> {
  let before: string | undefined;
  if (cursor !== undefined) {
    before = decodeCursor(cursor, { listing: 'user_transfers', owner: userId }, ['before']).before;
  }
  const side = async (index: 'gsi2' | 'gsi3', partition: string) => {
    const page = await queryPage(deps, {
      index,
      partition,
      cursor: undefined,
      created,
      limit,
      ...(before === undefined ? {} : { sortKey: { expression: '#sk < :before', names: { '#sk': `${index}sk` }, values: { ':before': before } } }),
    });
    return { items: page.items, more: page.next_cursor !== null };
  };
  const [sent, received] = await Promise.all([side('gsi2', transferKeys.sentBy(userId)), side('gsi3', transferKeys.receivedBy(userId))]);
  const merged = [...sent.items, ...received.items].map(toTransfer).sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const data = merged.slice(0, limit);
  const more = merged.length > limit || sent.more || received.more;
  return { data, next_cursor: more && data.length > 0 ? encodeCursor({ listing: 'user_transfers', owner: userId }, { before: data[data.length - 1]!.id }) : null };
}

const decodeTransfer = codec<Transfer>('transfer', {
  id: str,
  from_user_id: str,
  to_user_id: str,
  amount: int,
  fee: int,
  currency: str,
  status: oneOf('completed'),
  description: nullable(str),
  metadata: orElse(strMap, () => ({})),
  ledger_transaction_id: str,
  created_at: str,
});

export function toTransfer(item: Record<string, unknown>): Transfer {
  const transfer = decodeTransfer(item);
  // In key order: DynamoDB keeps a map's entries in no order, and a replay is byte for byte.
  return { ...transfer, metadata: Object.fromEntries(Object.entries(transfer.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}
