import { codec, int } from '../../kernel/codec';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../kernel/errors';
import { outboxItem } from '../../events/outbox';
import { LedgerRefusal } from '../../ledger-client/client';
import { auditItem } from '../tenancy/audit';
import type { WalletDeps } from '../deps';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { defineOperation } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import { getItem } from '../../aws/store';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { creditLimitOf } from './balances';
import { transferKeys } from './keys';

/**
 * Credit lines (spec part 2 "Credit limit result", part 4 item 17, part 6 `credit_limit.changed`):
 * a business wallet may go below zero down to its credit limit, which is the floor of its cash
 * account in the ledger (floor = -credit_limit).
 */

export interface CreditLimitResult {
  user_id: string;
  account_id: string;
  credit_limit: number;
  previous: number;
}

/** The largest credit line: the ledger's bound on a floor (2^45). */
export const MAX_CREDIT_LIMIT = 2 ** 45;

interface CreditLimitRequest {
  user_id: string;
  credit_limit: number;
}

/**
 * One credit-line change as a saga (shared/wallet/saga.ts), once per Idempotency-Key: the
 * ledger's floor changes first (a PATCH, idempotent by nature: setting the same floor twice is one
 * change); then the wallet's credit-limit record, its audit record, the `credit_limit.changed`
 * event and the key's answer commit in one transaction, conditioned on the record's version.
 * `previous` is the record's last audited value (the floor read from the ledger before the first
 * change). A concurrent change that commits first makes this one retryable (409
 * idempotency_in_flight): its retry, or the sweeper, sets the floor again after it, so the ledger
 * ends at the value of the last change the wallet recorded.
 */
export const CREDIT_LIMIT_SET = defineOperation('credit_limit.set', async ({ runtime, tenantId, request, principal, requestId }) => {
  const input = request as CreditLimitRequest;
  if (!Number.isSafeInteger(input.credit_limit) || input.credit_limit < 0 || input.credit_limit > MAX_CREDIT_LIMIT) {
    throw new AppError('invalid_request', `credit_limit must be an integer from 0 to ${MAX_CREDIT_LIMIT}.`, { errors: [{ field: 'credit_limit', message: 'out of range' }] });
  }
  const [tenant, user] = await Promise.all([getTenantRecord(runtime, tenantId), getUserRecord(runtime, tenantId, input.user_id)]);
  if (user.kind !== 'business') throw new AppError('user_not_business', 'Only a business wallet can have a credit line.');
  const ledger = runtime.ledger();
  const key = transferKeys.creditLimit(input.user_id);
  const record = await getItem(runtime, key);
  const stored = record && decodeCreditLimit(record);
  const version = stored ? stored.version : 0;
  const previous = stored ? stored.credit_limit : creditLimitOf((await ledger.getAccount(tenant.ledger_id, user.cash_account_id)).floor);
  const result: CreditLimitResult = { user_id: input.user_id, account_id: user.cash_account_id, credit_limit: input.credit_limit, previous };
  return {
    post: async () => {
      try {
        return await ledger.updateAccount(tenant.ledger_id, user.cash_account_id, { floor: input.credit_limit === 0 ? 0 : -input.credit_limit });
      } catch (error) {
        if (error instanceof LedgerRefusal && error.code === 'insufficient_funds') {
          throw new AppError('credit_limit_below_balance', `The available balance is below -${input.credit_limit}: more is drawn than that credit line allows.`);
        }
        throw error;
      }
    },
    commit: async () => {
      const now = runtime.clock.now().toISOString();
      return {
        items: [
          {
            Put: {
              TableName: runtime.table,
              Item: { ...key, entity: 'credit_limit', tenant_id: tenantId, user_id: input.user_id, account_id: user.cash_account_id, credit_limit: input.credit_limit, version: version + 1, updated_at: now },
              ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
              ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
            },
          },
          auditItem(runtime, { tenantId, actor: principal, action: 'credit_limit.set', target: { type: 'user', id: input.user_id }, before: { credit_limit: previous }, after: { credit_limit: input.credit_limit }, requestId }),
          outboxItem(runtime, { type: 'credit_limit.changed', tenantId, data: { credit_limit: result } }).item,
        ],
        status: 200,
        body: result,
      };
    },
  };
});

/** The wallet's record of a business user's credit line: its last value and the version its next change is conditioned on. */
const decodeCreditLimit = codec<{ credit_limit: number; version: number }>('credit_limit', { credit_limit: int, version: int });

/**
 * Sets a business user's credit line, once per Idempotency-Key (a retry answers the first answer);
 * without one it still runs as a saga (crash-safe under a key of its own), and a repeat sets the same line again.
 * Refuses: user_not_found (also another tenant's user), user_not_business (a consumer wallet),
 * credit_limit_below_balance (the available balance is already below the new floor: more is drawn
 * than the new line allows), account_frozen, account_closed, invalid_request (out of range),
 * idempotency_key_reuse, idempotency_in_flight (a concurrent change committed first: retry).
 */
export async function setCreditLimit(
  runtime: WalletDeps,
  principal: Principal,
  tenantId: string,
  userId: string,
  creditLimit: number,
  options: { idempotencyKey: string | undefined; requestId: string; faults?: SagaFaults },
): Promise<Outcome> {
  const request: CreditLimitRequest = { user_id: userId, credit_limit: creditLimit };
  // No client key: a fresh random one no client can guess, so the saga (and the sweeper) still has its key record.
  const idempotencyKey = options.idempotencyKey ?? `unkeyed:${randomUUID()}`;
  return runOperation(runtime, { operation: CREDIT_LIMIT_SET, tenantId, idempotencyKey, request, principal, requestId: options.requestId }, options.faults);
}
