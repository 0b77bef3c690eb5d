import * as z from '../../kernel/zod';
import { cursor, integerJson, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';
import { MAX_PAYOUT_AMOUNT } from './limits';

/** Request and response shapes of payouts (docs/payouts.md): a merchant's settled money, out through a payout rail. */

export { MAX_PAYOUT_AMOUNT };

export const PAYOUT_STATUSES = ['pending', 'paid', 'failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** What the sandbox rail will report: `succeed` (paid, the default) or `fail`. */
export const SANDBOX_PAYOUT_OUTCOMES = ['succeed', 'fail'] as const;
export type SandboxPayoutOutcome = (typeof SANDBOX_PAYOUT_OUTCOMES)[number];

export const railName = z.string().check(z.regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a payout rail name, such as sandbox'));

export const payoutCreate = z.strictObject({
  merchant_id: uuid,
  /** What reaches the merchant's bank, in integer minor units of `currency`; the payout fee is held on top. */
  amount: z.int().check(z.minimum(1), z.maximum(MAX_PAYOUT_AMOUNT)),
  /** Must be the tenant's currency (the settlement account's). */
  currency: z.string().check(z.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code, such as USD')),
  description: z.optional(z.string().check(z.maxLength(500))),
  metadata: z.optional(metadata),
  /** Default `sandbox`. */
  rail: z.optional(railName),
  /** Sandbox rail only, and never with a live API key: what the sandbox rail will confirm. */
  sandbox_outcome: z.optional(z.enum(SANDBOX_PAYOUT_OUTCOMES)),
});
export type PayoutCreate = z.infer<typeof payoutCreate>;

export const payout = z
  .object({
    id: uuid,
    merchant_id: uuid,
    /** What the merchant receives. */
    amount: z.int(),
    currency: z.string(),
    /** The tenant's `payout` fee on `amount`, paid by the merchant on top (pinned at creation). */
    fee: z.int(),
    /** What leaves the merchant's settlement account: amount + fee. */
    total_debit: z.int(),
    status: z.enum(PAYOUT_STATUSES),
    rail: z.string(),
    /** The rail's id of the payout. */
    rail_ref: z.string(),
    /** Why the rail failed it (`failed` only). */
    failure_reason: z.nullable(z.string()),
    description: z.nullable(z.string()),
    metadata: z.record(z.string(), z.string()),
    /** The ledger posting that paid it out (`paid` only). */
    ledger_transaction_id: z.nullable(uuid),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'Payout' }));
export type Payout = z.infer<typeof payout>;

export const payoutListQuery = z.strictObject({ merchant_id: z.optional(uuid), status: z.optional(z.enum(PAYOUT_STATUSES)), ...createdRange, cursor, limit: pageLimit() });

/** A rail's webhook body is read only after its signature is verified over the raw bytes (./settlement.ts). */
export const railWebhookBody = integerJson;

export const railWebhookAck = z.object({
  received: z.literal(true),
  event_id: z.string(),
  /** null for an event type the wallet does not act on. */
  payout_id: z.nullable(uuid),
  /** The payout's status after the event; null as payout_id. */
  status: z.nullable(z.enum(PAYOUT_STATUSES)),
  /** Nothing changed: the payout had already left `pending`, or the event type is not one the wallet acts on. */
  ignored: z.boolean(),
});
