import * as z from 'zod';
import { cursor, integerJson, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';
import { MAX_PAYOUT_AMOUNT } from './limits';

/** Request and response shapes of payouts (docs/payouts.md): a merchant's settled money, out through a payout rail. */

export { MAX_PAYOUT_AMOUNT };

export const PAYOUT_STATUSES = ['pending', 'paid', 'failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** What the sandbox rail will report: `succeed` (paid, the default) or `fail`. */
export const SANDBOX_PAYOUT_OUTCOMES = ['succeed', 'fail'] as const;
export type SandboxPayoutOutcome = (typeof SANDBOX_PAYOUT_OUTCOMES)[number];

export const railName = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a payout rail name, such as sandbox');

export const payoutCreate = z
  .object({
    merchant_id: uuid,
    /** What reaches the merchant's bank, in integer minor units of `currency`; the payout fee is held on top. */
    amount: z.number().int().min(1).max(MAX_PAYOUT_AMOUNT),
    /** Must be the tenant's currency (the settlement account's). */
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code, such as USD'),
    description: z.string().max(500).optional(),
    metadata: metadata.optional(),
    /** Default `sandbox`. */
    rail: railName.optional(),
    /** Sandbox rail only, and never with a live API key: what the sandbox rail will confirm. */
    sandbox_outcome: z.enum(SANDBOX_PAYOUT_OUTCOMES).optional(),
  })
  .strict();
export type PayoutCreate = z.infer<typeof payoutCreate>;

export const payout = z
  .object({
    id: uuid,
    merchant_id: uuid,
    /** What the merchant receives. */
    amount: z.number().int(),
    currency: z.string(),
    /** The tenant's `payout` fee on `amount`, paid by the merchant on top (pinned at creation). */
    fee: z.number().int(),
    /** What leaves the merchant's settlement account: amount + fee. */
    total_debit: z.number().int(),
    status: z.enum(PAYOUT_STATUSES),
    rail: z.string(),
    /** The rail's id of the payout. */
    rail_ref: z.string(),
    /** Why the rail failed it (`failed` only). */
    failure_reason: z.string().nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    /** The ledger posting that paid it out (`paid` only). */
    ledger_transaction_id: uuid.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Payout' });
export type Payout = z.infer<typeof payout>;

export const payoutListQuery = z
  .object({ merchant_id: uuid.optional(), status: z.enum(PAYOUT_STATUSES).optional(), ...createdRange, cursor, limit: pageLimit() })
  .strict();

/** A rail's webhook body is read only after its signature is verified over the raw bytes (./settlement.ts). */
export const railWebhookBody = integerJson;

export const railWebhookAck = z.object({
  received: z.literal(true),
  event_id: z.string(),
  /** null for an event type the wallet does not act on. */
  payout_id: uuid.nullable(),
  /** The payout's status after the event; null as payout_id. */
  status: z.enum(PAYOUT_STATUSES).nullable(),
  /** Nothing changed: the payout had already left `pending`, or the event type is not one the wallet acts on. */
  ignored: z.boolean(),
});
