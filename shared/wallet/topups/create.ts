import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import { computeFee, type FeeRule } from '../tenancy/fees';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { defineOperation, type OperationPlan } from '../saga/registry';
import { runOperation } from '../saga/engine';
import type { Outcome } from '../../http/outcome';
import type { WalletDeps } from '../deps';
import { DEFAULT_GATEWAY, topupProcessors } from './gateways';
import type { SandboxOutcome, TopupIntent, TopupProcessor } from './processors';
import { publicTopup, topupItem, type TopupRecord } from './records';
import { SANDBOX_GATEWAY } from './sandbox';
import type { TopupCreate } from './schemas';

/**
 * Top-ups (docs/topups.md). Money enters a wallet in three steps, each a saga of
 * shared/wallet/saga.ts so that any retry resumes instead of repeating:
 *   1. `topup.create` (POST /v1/topups, the client's Idempotency-Key): the processor's intent, then
 *      the `pending` top-up. The top-up id is the saga's operation id.
 *   2. `topup.settle` (the processor's webhook, keyed by the processor's event id): on success the
 *      ledger posting (funding -> user cash, fee -> revenue) under a key derived from the top-up
 *      id, then the status and its `topup.*` event in one TransactWriteItems.
 *   3. `topup.resolve` (an operator, after an amount mismatch): the same credit, or `refunded`.
 * The ledger key derives from the top-up, not from the event or request, so whichever path credits
 * a top-up and however often it is retried, the ledger posts at most once.
 */

type Runtime = WalletDeps;

// Step 1 ------------------------------------------------------------------------------------------

interface CreateRequest {
  user_id: string;
  amount: number;
  currency: string;
  gateway: string;
  sandbox_outcome?: SandboxOutcome;
}

/** What a top-up fixes when it starts (runOperation's `pinned`): a fee plan change later does not reprice it. */
interface CreatePinned {
  currency: string;
  fee_rule: FeeRule;
}

const TOPUP_CREATE = defineOperation('topup.create', async (ctx): Promise<OperationPlan> => {
  const request = ctx.request as CreateRequest;
  const pinned = ctx.pinned as CreatePinned | undefined;
  if (!pinned) throw new Error('a top-up was stored without its fee rule');
  if (request.currency !== pinned.currency) {
    throw invalid('currency', `currency must be the tenant's currency, ${pinned.currency}.`);
  }
  const user = await getUserRecord(ctx.runtime, ctx.tenantId, request.user_id);
  const processor = processorNamed(request.gateway);
  if (!processor.currencies.includes(request.currency)) throw invalid('currency', `Gateway ${processor.name} does not accept ${request.currency}.`);
  const feeRule = pinned.fee_rule;
  const fee = computeFee(feeRule, request.amount);
  // The user pays the fee out of the amount, so something must be left to credit.
  if (fee >= request.amount) throw invalid('amount', `amount must be more than the top-up fee on it, ${fee}.`);
  const topupId = ctx.operationId;
  return {
    post: () =>
      processor.createIntent({
        id: topupId,
        tenant_id: ctx.tenantId,
        user_id: user.id,
        amount: request.amount,
        currency: request.currency,
        ...(request.sandbox_outcome ? { sandbox_outcome: request.sandbox_outcome } : {}),
      }),
    commit: async (posted) => {
      const intent = posted as TopupIntent;
      const now = ctx.runtime.clock.now().toISOString();
      const record: TopupRecord = {
        id: topupId,
        tenant_id: ctx.tenantId,
        user_id: user.id,
        amount: request.amount,
        currency: request.currency,
        fee_rule: feeRule,
        fee,
        net_amount: request.amount - fee,
        gateway: processor.name,
        status: 'pending',
        processor_ref: intent.processor_ref,
        confirmed_amount: null,
        confirmed_currency: null,
        failure_reason: null,
        resolution: null,
        ledger_transaction_id: null,
        processor_refund_ref: null,
        processor_event_id: null,
        claim: null,
        created_at: now,
        updated_at: now,
      };
      return {
        items: [{ Put: { TableName: ctx.runtime.table, Item: topupItem(record), ConditionExpression: 'attribute_not_exists(pk)' } }],
        status: 201,
        body: { ...publicTopup(record), client_secret: intent.client_secret ?? null, redirect_url: intent.redirect_url ?? null },
      };
    },
  };
});

export interface StartTopupOptions {
  idempotencyKey: string;
  requestId: string;
}

/**
 * Starts a top-up: the processor's intent, then the `pending` top-up, once per Idempotency-Key (a
 * retry answers the first answer byte for byte). A user token acts for its own user only.
 * Refuses: invalid_request (no user_id for a tenant credential, unknown gateway, the sandbox
 * gateway with a live credential, sandbox_outcome off the sandbox, currency not the tenant's or not
 * the gateway's, amount not above its fee), user_not_found, tenant_not_found, idempotency_key_reuse.
 */
export async function startTopup(runtime: Runtime, tenantId: string, principal: Principal, input: TopupCreate, options: StartTopupOptions): Promise<Outcome> {
  const userId = actingUser(principal, input.user_id);
  const gateway = input.gateway ?? DEFAULT_GATEWAY;
  processorNamed(gateway);
  // The sandbox credits money no one paid: it serves sandbox credentials only, whatever they ask.
  if (gateway === SANDBOX_GATEWAY && principal.sandbox !== true) {
    throw invalid('gateway', 'The sandbox gateway takes sandbox credentials only (a sandbox API key, or a user token it minted).');
  }
  if (input.sandbox_outcome !== undefined && gateway !== SANDBOX_GATEWAY) {
    throw invalid('sandbox_outcome', 'sandbox_outcome is for the sandbox gateway only.');
  }
  const request: CreateRequest = {
    user_id: userId,
    amount: input.amount,
    currency: input.currency,
    gateway,
    ...(input.sandbox_outcome ? { sandbox_outcome: input.sandbox_outcome } : {}),
  };
  const tenant = await getTenantRecord(runtime, tenantId);
  const pinned: CreatePinned = { currency: tenant.currency, fee_rule: tenant.fees.topup };
  return runOperation(runtime, { operation: TOPUP_CREATE, tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned });
}

// Step 2 ------------------------------------------------------------------------------------------

export function actingUser(principal: Pick<Principal, 'userId'>, requested: string | undefined): string {
  if (principal.userId !== undefined) {
    if (requested !== undefined && requested !== principal.userId) throw new AppError('user_not_found', `No user ${requested}.`);
    return principal.userId;
  }
  if (requested === undefined) throw invalid('user_id', 'user_id is required with a tenant credential.');
  return requested;
}

function processorNamed(gateway: string): TopupProcessor {
  const processor = topupProcessors().get(gateway);
  if (!processor) throw invalid('gateway', `No top-up gateway ${gateway} is configured.`);
  return processor;
}

const invalid = (field: string, detail: string) => new AppError('invalid_request', detail, { errors: [{ field, message: detail }] });
