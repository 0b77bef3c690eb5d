import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from '../../kernel/zod';
import type { QueueTransport } from '../../aws/transport';
import { AppError } from '../../kernel/errors';
import { onFirstUse } from '../../kernel/lazy';
import { deliverSandboxMessages, signedSandboxRequest, verifySandboxSignature, type SandboxDeliveryDeps } from '../sandbox-delivery';
import type { OtherRailEvent, PayoutInstruction, PayoutInstructionRequest, PayoutRail, RailEvent } from './rails';

/**
 * The sandbox payout rail: a stand-in for a bank transfer rail that needs no account, the top-up
 * sandbox turned outward. Sending a payout queues its confirmation (SANDBOX_RAIL_QUEUE, a second
 * later); the queue worker POSTs it, signed, to the wallet's public rail webhook, exactly as a real
 * rail would from outside. `sandbox_outcome` `fail` makes it report the payout failed.
 */

export const SANDBOX_RAIL = 'sandbox';
export const SANDBOX_RAIL_QUEUE = 'sandboxPayoutRail';
export const SANDBOX_RAIL_CONFIRMATION_DELAY_SECONDS = 1;
/** The failure reason the sandbox reports, as a bank would say the account could not be credited. */
export const SANDBOX_FAILURE_REASON = 'account_closed_at_bank';

const compactId = (uuid: string) => uuid.replace(/-/g, '');

/** The rail's webhook body (built on first use: ../../kernel/lazy.ts). */
const railEvent = onFirstUse(() =>
  z.strictObject({
    id: z.string().check(z.minLength(1), z.maxLength(200)),
    type: z.enum(['payout.paid', 'payout.failed']),
    payout_id: z.uuid(),
    rail_ref: z.string().check(z.minLength(1), z.maxLength(200)),
    failure_reason: z.nullable(z.string().check(z.maxLength(200))),
  }),
);
type SandboxRailEvent = z.infer<ReturnType<typeof railEvent>>;

export interface SandboxRailOptions {
  /** Signs and verifies the confirmations (SANDBOX_PROCESSOR_SECRET, shared with the top-up sandbox). */
  secret: string;
  transport: QueueTransport;
  currencies: readonly string[];
}

export function createSandboxRail(options: SandboxRailOptions): PayoutRail {
  return {
    name: SANDBOX_RAIL,
    currencies: options.currencies,
    sandbox: true,

    async sendPayout(payout: PayoutInstructionRequest): Promise<PayoutInstruction> {
      // Everything derives from the payout id, so a repeated call (a resumed saga) sends the same
      // payout and a confirmation with the same event id, which the webhook then deduplicates.
      const rail_ref = `sbx_po_${compactId(payout.id)}`;
      const failed = payout.sandbox_outcome === 'fail';
      const event: SandboxRailEvent = {
        id: `sbx_pevt_${compactId(payout.id)}`,
        type: failed ? 'payout.failed' : 'payout.paid',
        payout_id: payout.id,
        rail_ref,
        failure_reason: failed ? SANDBOX_FAILURE_REASON : null,
      };
      await options.transport.send(SANDBOX_RAIL_QUEUE, JSON.stringify(event), { delaySeconds: SANDBOX_RAIL_CONFIRMATION_DELAY_SECONDS });
      return { rail_ref };
    },

    parseWebhook(rawBody: string, headers: Readonly<Record<string, string>>, now: Date): RailEvent | OtherRailEvent {
      verifySandboxSignature(headers, rawBody, options.secret, now);
      let parsed: SandboxRailEvent;
      try {
        parsed = z.parse(railEvent(), JSON.parse(rawBody));
      } catch {
        throw new AppError('invalid_request', 'The signed body is not a sandbox rail event.');
      }
      return { ...parsed, outcome: parsed.type === 'payout.paid' ? 'paid' : 'failed', failure_reason: parsed.type === 'payout.failed' ? (parsed.failure_reason ?? 'failed') : null };
    },
  };
}

/** The signed request the sandbox rail sends for one event (also what tests replay or forge). */
export function sandboxRailRequest(event: SandboxRailEvent, secret: string, nowSeconds: number): { body: string; headers: Record<string, string> } {
  return signedSandboxRequest(JSON.stringify(z.parse(railEvent(), event)), secret, nowSeconds);
}

/** The sandbox rail's queue worker: each queued confirmation, signed, to the wallet's rail webhook. */
export function deliverSandboxRailConfirmations(event: SQSEvent, deps: SandboxDeliveryDeps): Promise<SQSBatchResponse> {
  return deliverSandboxMessages(event, deps, (messageBody) => {
    try {
      const parsed = z.parse(railEvent(), JSON.parse(messageBody));
      return { about: { payout_id: parsed.payout_id }, body: JSON.stringify(parsed) };
    } catch {
      return undefined;
    }
  });
}
