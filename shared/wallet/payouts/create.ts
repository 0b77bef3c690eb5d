import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import { LedgerRefusal } from '../../ledger-client/client';
import type { Pending } from '../../ledger-client/contract';
import type { WalletDeps } from '../deps';
import { merchantRecord } from '../merchants/merchants';
import { moveLegs } from '../money/legs';
import { defineOperation, ledgerKeyOf } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import { computeFee, type FeeRule } from '../tenancy/fees';
import { HOT_ACCOUNT_SHARDS, lazyAccount } from '../tenancy/ledger-accounts';
import { getTenantRecord } from '../tenancy/tenants';
import type { PayoutInstruction } from './rails';
import { merchantScopeOf } from './reads';
import { publicPayout, payoutItem, type PayoutRecord } from './records';
import { DEFAULT_RAIL, railNamed } from './registry';
import { MAX_PAYOUT_AMOUNT } from './limits';
import type { PayoutCreate, SandboxPayoutOutcome } from './schemas';

/**
 * Payouts (docs/payouts.md): a merchant's settled money leaves the platform through a payout rail,
 * the top-up processor's rail turned outward. Two sagas of shared/wallet/saga.ts:
 *   1. `payout.create` (POST /v1/payouts, the client's Idempotency-Key): the ledger holds amount +
 *      fee on the merchant's settlement account as a pending posting (so it cannot be spent twice,
 *      and a refund reserve stays behind), then the rail is told to send it; the payout is `pending`.
 *   2. `payout.settle` (./settlement.ts, the rail's signed webhook, keyed by the rail's event id):
 *      paid posts the pending (settlement -> tenant payout clearing, fee -> revenue); failed voids it.
 * The payout id is the create saga's operation id; every ledger key derives from it.
 */

interface CreateRequest {
  merchant_id: string;
  amount: number;
  currency: string;
  rail: string;
  description: string | null;
  metadata: Record<string, string>;
  sandbox_outcome?: SandboxPayoutOutcome;
}

/** What a payout fixes when it starts (runOperation's `pinned`): a fee plan or reserve change later does not change it. */
interface CreatePinned {
  ledger_id: string;
  currency: string;
  settlement_account_id: string;
  clearing_account_id: string;
  revenue_account_id: string;
  fee_rule: FeeRule;
  fee: number;
  refund_reserve: number;
}

interface Posted {
  pending: Pending;
  instruction: PayoutInstruction;
}

const PAYOUT_CREATE = defineOperation('payout.create', async (ctx) => {
  const request = ctx.request as CreateRequest;
  const pin = ctx.pinned as CreatePinned | undefined;
  if (!pin) throw new Error('a payout was stored without its quote');
  const payoutId = ctx.operationId;
  const total = request.amount + pin.fee;
  const ledger = ctx.runtime.ledger();
  return {
    post: async (ledgerKey): Promise<Posted> => {
      let pending: Pending;
      try {
        pending = await ledger.reserve(
          pin.ledger_id,
          {
            type: 'payout',
            reference_id: payoutId,
            metadata: { payout_id: payoutId, merchant_id: request.merchant_id },
            // Held on the way out: what is reserved is no longer available to another payout or a refund.
            legs: moveLegs(pin.currency, pin.settlement_account_id, pin.clearing_account_id, total),
            ...(pin.refund_reserve > 0 ? { min_available_after: [{ account_id: pin.settlement_account_id, amount: pin.refund_reserve }] } : {}),
          },
          ledgerKey,
        );
      } catch (error) {
        // The floor (nothing left) and the refund reserve (too little left) are one answer to the caller.
        if (error instanceof LedgerRefusal && (error.code === 'insufficient_funds' || error.code === 'precondition_failed')) {
          throw new AppError('insufficient_funds', `The merchant's available settlement balance${pin.refund_reserve > 0 ? `, less its refund reserve of ${pin.refund_reserve},` : ''} does not cover ${total} (amount ${request.amount} + fee ${pin.fee}).`);
        }
        throw error;
      }
      const rail = railNamed(request.rail);
      try {
        const instruction = await rail.sendPayout({
          id: payoutId,
          tenant_id: ctx.tenantId,
          merchant_id: request.merchant_id,
          amount: request.amount,
          currency: request.currency,
          description: request.description,
          ...(request.sandbox_outcome ? { sandbox_outcome: request.sandbox_outcome } : {}),
        });
        return { pending, instruction };
      } catch (error) {
        // The rail will never send it: give the hold back, and the refusal is the answer.
        if (error instanceof AppError && error.status < 500) await ledger.voidPending(pin.ledger_id, pending.id, ledgerKeyOf(ctx.tenantId, payoutId, 'refused'));
        throw error;
      }
    },
    commit: async (posted) => {
      const { pending, instruction } = posted as Posted;
      const record: PayoutRecord = {
        id: payoutId,
        tenant_id: ctx.tenantId,
        merchant_id: request.merchant_id,
        amount: request.amount,
        currency: request.currency,
        fee_rule: pin.fee_rule,
        fee: pin.fee,
        status: 'pending',
        rail: request.rail,
        rail_ref: instruction.rail_ref,
        failure_reason: null,
        description: request.description,
        metadata: request.metadata,
        ledger_id: pin.ledger_id,
        pending_id: pending.id,
        settlement_account_id: pin.settlement_account_id,
        clearing_account_id: pin.clearing_account_id,
        revenue_account_id: pin.revenue_account_id,
        ledger_transaction_id: null,
        rail_event_id: null,
        created_at: ctx.startedAt,
        updated_at: ctx.startedAt,
      };
      return { items: [{ Put: { TableName: ctx.runtime.table, Item: payoutItem(record), ConditionExpression: 'attribute_not_exists(pk)' } }], status: 201, body: publicPayout(record) };
    },
  };
});

/**
 * Starts a payout once per Idempotency-Key: amount + the tenant's payout fee held on the merchant's
 * settlement account, then sent through the rail (a retry answers the first answer byte for byte).
 * A hidden or suspended client's merchant is paid out like any other: settled money stays settled.
 * Refuses: not_found (merchant unknown, another tenant's, or not the bound client's), invalid_request
 * (currency not the tenant's or the rail's, unknown rail, the sandbox rail with a live credential,
 * sandbox_outcome off the sandbox, the fee too large), insufficient_funds (available settlement
 * balance less the refund reserve short of amount + fee; nothing is held), idempotency_key_reuse.
 */
export async function startPayout(runtime: WalletDeps, tenantId: string, principal: Principal, input: PayoutCreate, options: { idempotencyKey: string; requestId: string; faults?: SagaFaults }): Promise<Outcome> {
  const own = await merchantScopeOf(runtime, principal);
  if (own !== undefined && own !== input.merchant_id) throw new AppError('not_found', `No merchant ${input.merchant_id}.`);
  const railName = input.rail ?? DEFAULT_RAIL;
  const rail = railNamed(railName);
  // The sandbox rail reports money sent that never left: it serves sandbox credentials only.
  if (rail.sandbox && principal.sandbox !== true) throw invalid('rail', 'The sandbox rail takes sandbox credentials only (a sandbox API key).');
  if (input.sandbox_outcome !== undefined && !rail.sandbox) throw invalid('sandbox_outcome', 'sandbox_outcome is for the sandbox rail only.');
  const [tenant, merchant] = await Promise.all([getTenantRecord(runtime, tenantId), merchantRecord(runtime, tenantId, input.merchant_id)]);
  if (input.currency !== tenant.currency) throw invalid('currency', `currency must be the tenant's ${tenant.currency}.`);
  if (!rail.currencies.includes(input.currency)) throw invalid('currency', `Rail ${rail.name} does not pay out ${input.currency}.`);
  const fee = computeFee(tenant.fees.payout, input.amount);
  if (input.amount + fee > MAX_PAYOUT_AMOUNT) throw invalid('amount', `amount with its fee must not exceed ${MAX_PAYOUT_AMOUNT}.`);
  const clearing = await lazyAccount(runtime, tenant.ledger_id, tenantId, { owner_type: 'tenant', owner_id: tenantId, purpose: 'payout_clearing', commodity: tenant.currency, floor: null, shards: HOT_ACCOUNT_SHARDS.payout_clearing });
  const pinned: CreatePinned = {
    ledger_id: tenant.ledger_id,
    currency: tenant.currency,
    settlement_account_id: merchant.settlement_account_id,
    clearing_account_id: clearing,
    revenue_account_id: tenant.accounts.revenue,
    fee_rule: tenant.fees.payout,
    fee,
    refund_reserve: merchant.refund_reserve,
  };
  const request: CreateRequest = {
    merchant_id: input.merchant_id,
    amount: input.amount,
    currency: input.currency,
    rail: railName,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    ...(input.sandbox_outcome ? { sandbox_outcome: input.sandbox_outcome } : {}),
  };
  return runOperation(runtime, { operation: PAYOUT_CREATE, tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned }, options.faults);
}

const invalid = (field: string, detail: string) => new AppError('invalid_request', detail, { errors: [{ field, message: detail }] });
