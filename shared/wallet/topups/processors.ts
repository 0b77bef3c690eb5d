/**
 * The adapter every payment processor implements (docs/topups.md "Processors" maps each field to
 * Stripe PaymentIntents). The wallet asks a processor for an intent when a top-up starts and
 * learns the outcome only from the processor's signed webhook, never from the client: a client
 * that says "I paid" proves nothing.
 */

export type TopupFlow = 'client_secret' | 'redirect';

/** What a processor is told about a top-up when its intent is created. */
export interface TopupIntentRequest {
  id: string;
  tenant_id: string;
  user_id: string;
  /** Integer minor units of `currency`. */
  amount: number;
  currency: string;
  /** Sandbox processor only: the outcome its confirmation will report. */
  sandbox_outcome?: SandboxOutcome;
}

/** What the client needs to complete the payment with the processor. */
export interface TopupIntent {
  /** The processor's id of the intent (Stripe: the PaymentIntent id `pi_...`). */
  processor_ref: string;
  /** `client_secret` flow: handed to the processor's SDK in the app. */
  client_secret?: string;
  /** `redirect` flow: where the app sends the user. */
  redirect_url?: string;
}

/** A verified processor notification, in the wallet's terms. */
export interface ProcessorEvent {
  /** The processor's event id: deliveries of one event share it (Stripe: `evt_...`). */
  id: string;
  type: string;
  processor_ref: string;
  topup_id: string;
  outcome: 'succeeded' | 'failed';
  /** What the processor confirmed, which may differ from the intent. */
  amount: number;
  currency: string;
}

/** A verified event the wallet has no use for (Stripe sends many types to one endpoint). */
export interface OtherProcessorEvent {
  id: string;
  type: string;
  ignored: true;
}

export interface TopupProcessor {
  readonly name: string;
  readonly flow: TopupFlow;
  /** ISO 4217 codes the processor accepts. */
  readonly currencies: readonly string[];
  /**
   * Creates (or, for the same top-up id, finds again) the processor's intent. Must be idempotent on
   * `topup.id`: a saga that crashed after this call calls it again.
   */
  createIntent(topup: TopupIntentRequest): Promise<TopupIntent>;
  /**
   * Verifies the signature over the raw body and reads the event; a genuine event of a type the
   * wallet does not act on comes back as `OtherProcessorEvent` (acknowledged, nothing changes).
   * Refuses: unauthenticated (missing, malformed, stale or wrong signature), invalid_request (a
   * signed body that is not an event).
   */
  parseWebhook(rawBody: string, headers: Readonly<Record<string, string>>, now: Date): ProcessorEvent | OtherProcessorEvent;
  /**
   * Gives the payer back what the processor took (after an amount mismatch an operator refunds).
   * Must be idempotent on `idempotency_key` (Stripe: the Idempotency-Key of POST /v1/refunds): a
   * saga that crashed after this call calls it again and must get the same refund.
   */
  refund(request: ProcessorRefundRequest): Promise<ProcessorRefund>;
}

export interface ProcessorRefundRequest {
  topup_id: string;
  processor_ref: string;
  /** What the processor confirmed it took, in minor units of `currency`. */
  amount: number;
  currency: string;
  idempotency_key: string;
}

export interface ProcessorRefund {
  /** The processor's id of the refund (Stripe: `re_...`). */
  refund_ref: string;
}

export const SANDBOX_OUTCOMES = ['succeed', 'decline', 'mismatch'] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

/** The processors a deployment has configured, by name. */
export type ProcessorRegistry = ReadonlyMap<string, TopupProcessor>;
