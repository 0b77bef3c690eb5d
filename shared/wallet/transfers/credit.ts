import { AppError } from '../../kernel/errors';
import { outboxItem } from '../../events/outbox';
import { LedgerRefusal } from '../../ledger-client/client';
import { auditItem } from '../tenancy/audit';
import type { Actor } from '../deps';
import { ConditionsFailed, getItem, transact } from '../../aws/store';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { creditLimitOf } from './balances';
import type { TransfersDeps } from './deps';
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
const MAX_ATTEMPTS = 5;

/**
 * Sets a business user's credit line. The ledger's floor changes first (a PATCH, idempotent by
 * nature: setting the same floor twice is one change); then the wallet's credit-limit record, its
 * audit record and the `credit_limit.changed` event commit in one transaction, conditioned on the
 * record's version. `previous` is the record's last audited value (the floor read from the ledger
 * before the first change), so a retry after a crash between the two steps still reports and
 * audits the change from what was audited last.
 * Refuses: user_not_found (also another tenant's user), user_not_business (a consumer wallet),
 * credit_limit_below_balance (the available balance is already below the new floor: more is drawn
 * than the new line allows), invalid_request (out of range), service_unavailable (contended).
 */
export async function setCreditLimit(
  deps: TransfersDeps,
  tenantId: string,
  userId: string,
  creditLimit: number,
  context: { actor: Actor; requestId: string },
): Promise<CreditLimitResult> {
  if (!Number.isSafeInteger(creditLimit) || creditLimit < 0 || creditLimit > MAX_CREDIT_LIMIT) {
    throw new AppError('invalid_request', `credit_limit must be an integer from 0 to ${MAX_CREDIT_LIMIT}.`, { errors: [{ field: 'credit_limit', message: 'out of range' }] });
  }
  const [tenant, user] = await Promise.all([getTenantRecord(deps, tenantId), getUserRecord(deps, tenantId, userId)]);
  if (user.kind !== 'business') throw new AppError('user_not_business', 'Only a business wallet can have a credit line.');
  const ledger = deps.ledger();
  const key = transferKeys.creditLimit(userId);

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const record = await getItem(deps, key);
    const version = record ? Number(record.version) : 0;
    const previous = record ? Number(record.credit_limit) : creditLimitOf((await ledger.getAccount(tenant.ledger_id, user.cash_account_id)).floor);
    try {
      await ledger.updateAccount(tenant.ledger_id, user.cash_account_id, { floor: creditLimit === 0 ? 0 : -creditLimit });
    } catch (error) {
      if (error instanceof LedgerRefusal && error.code === 'insufficient_funds') {
        throw new AppError('credit_limit_below_balance', `The available balance is below -${creditLimit}: more is drawn than that credit line allows.`);
      }
      if (error instanceof LedgerRefusal && (error.code === 'account_closed' || error.code === 'account_frozen')) throw new AppError(error.code, error.detail || undefined);
      throw error;
    }
    const result: CreditLimitResult = { user_id: userId, account_id: user.cash_account_id, credit_limit: creditLimit, previous };
    const now = deps.clock.now().toISOString();
    try {
      await transact(deps, [
        {
          Put: {
            TableName: deps.table,
            Item: { ...key, entity: 'credit_limit', tenant_id: tenantId, user_id: userId, account_id: user.cash_account_id, credit_limit: creditLimit, version: version + 1, updated_at: now },
            ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
            ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
          },
        },
        auditItem(deps, { tenantId, actor: context.actor, action: 'credit_limit.set', target: { type: 'user', id: userId }, before: { credit_limit: previous }, after: { credit_limit: creditLimit }, requestId: context.requestId }),
        outboxItem(deps, { type: 'credit_limit.changed', tenantId, data: { credit_limit: result } }).item,
      ]);
      return result;
    } catch (error) {
      // A concurrent change committed first: read its value and set ours again after it, so the
      // ledger ends at the value of the last change the wallet recorded.
      if (!(error instanceof ConditionsFailed) || !error.indexes.includes(0)) throw error;
    }
  }
  throw new AppError('service_unavailable', 'The credit line is being changed concurrently; retry the request.');
}
