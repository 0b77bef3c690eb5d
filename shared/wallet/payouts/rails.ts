import type { SandboxPayoutOutcome } from './schemas';

/**
 * The adapter every payout rail implements (docs/payouts.md "Adding a rail" maps it to Stripe
 * Payouts and to a bank transfer API). It is the top-up processor's port turned outward: the
 * wallet asks the rail to send money once the ledger holds it, and learns the outcome only from
 * the rail's signed webhook.
 */

/** What a rail is told when a payout is sent. */
export interface PayoutInstructionRequest {
  /** The payout id: the rail's idempotency key, so a resumed saga sends the same payout. */
  id: string;
  tenant_id: string;
  merchant_id: string;
  /** Integer minor units of `currency`: what the merchant receives. */
  amount: number;
  currency: string;
  description: string | null;
  /** Sandbox rail only: the outcome its confirmation will report. */
  sandbox_outcome?: SandboxPayoutOutcome;
}

export interface PayoutInstruction {
  /** The rail's id of the payout (Stripe: `po_...`). */
  rail_ref: string;
}

/** A verified rail notification, in the wallet's terms. */
export interface RailEvent {
  /** The rail's event id: deliveries of one event share it. */
  id: string;
  type: string;
  payout_id: string;
  rail_ref: string;
  outcome: 'paid' | 'failed';
  /** Why it failed (`failed` only), in the rail's words. */
  failure_reason: string | null;
}

/** A verified event the wallet has no use for. */
export interface OtherRailEvent {
  id: string;
  type: string;
  ignored: true;
}

export interface PayoutRail {
  readonly name: string;
  /** ISO 4217 codes the rail pays out. */
  readonly currencies: readonly string[];
  /** Whether it moves real money: a sandbox rail serves sandbox credentials only. */
  readonly sandbox: boolean;
  /**
   * Sends (or, for the same payout id, finds again) the payout. Must be idempotent on `id`: a saga
   * that crashed after this call calls it again. Refuses with a 4xx AppError when the rail will
   * not send it at all (the wallet then releases the hold).
   */
  sendPayout(request: PayoutInstructionRequest): Promise<PayoutInstruction>;
  /**
   * Verifies the signature over the raw body and reads the event. Refuses: unauthenticated
   * (missing, malformed, stale or wrong signature), invalid_request (a signed body that is not an event).
   */
  parseWebhook(rawBody: string, headers: Readonly<Record<string, string>>, now: Date): RailEvent | OtherRailEvent;
}

/** The rails a deployment has configured, by name. */
export type RailRegistry = ReadonlyMap<string, PayoutRail>;
