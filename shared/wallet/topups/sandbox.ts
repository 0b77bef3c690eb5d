import { createHmac } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from '../../kernel/zod';
import { AppError } from '../../kernel/errors';
import { onFirstUse } from '../../kernel/lazy';
import type { QueueTransport } from '../../aws/transport';
import type { ProcessorEvent, ProcessorRefund, ProcessorRefundRequest, TopupIntent, TopupIntentRequest, TopupProcessor } from './processors';
import { deliverSandboxMessages, signedSandboxRequest, verifySandboxSignature, type SandboxDeliveryDeps } from '../sandbox-delivery';

/**
 * The sandbox processor: a stand-in for a card processor that needs no account. Creating an intent
 * queues its confirmation (SANDBOX_QUEUE, one second later, as a processor confirms after the user
 * paid); the queue worker POSTs it, signed, to the wallet's own public webhook, exactly as a real
 * processor would from outside. `sandbox_outcome` picks what it confirms: the amount
 * (`succeed`), a decline (`decline`), or a different amount (`mismatch`).
 */

export const SANDBOX_GATEWAY = 'sandbox';
export const SANDBOX_QUEUE = 'sandboxProcessor';
export const SANDBOX_CONFIRMATION_DELAY_SECONDS = 1;

/** The sandbox's messages and bodies, checked as they arrive (built on first use: ../../kernel/lazy.ts). */
const schemas = onFirstUse(() => {
  const eventId = z.string().check(z.minLength(1), z.maxLength(200));
  const processorRef = z.string().check(z.minLength(1), z.maxLength(200));
  const currency = z.string().check(z.regex(/^[A-Z]{3}$/));
  const amount = z.int().check(z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER));

  /** What the sandbox queues when it creates an intent: the confirmation it will send. */
  const confirmationMessage = z.strictObject({ event_id: eventId, topup_id: z.uuid(), processor_ref: processorRef, outcome: z.enum(['succeeded', 'failed']), amount, currency });

  /** The body the sandbox POSTs to the wallet. */
  const sandboxEvent = z.strictObject({
    id: eventId,
    type: z.enum(['intent.succeeded', 'intent.failed']),
    topup_id: z.uuid(),
    processor_ref: processorRef,
    outcome: z.enum(['succeeded', 'failed']),
    amount,
    currency,
  });
  return { confirmationMessage, sandboxEvent };
});
type ConfirmationMessage = z.infer<ReturnType<typeof schemas>['confirmationMessage']>;

const compactId = (uuid: string) => uuid.replace(/-/g, '');

export interface SandboxProcessorOptions {
  /** Signs and verifies the confirmations (SANDBOX_PROCESSOR_SECRET). */
  secret: string;
  transport: QueueTransport;
  /** ISO 4217 codes it accepts (the wallet offers every active code). */
  currencies: readonly string[];
}

export function createSandboxProcessor(options: SandboxProcessorOptions): TopupProcessor {
  return {
    name: SANDBOX_GATEWAY,
    flow: 'client_secret',
    currencies: options.currencies,

    async createIntent(topup: TopupIntentRequest): Promise<TopupIntent> {
      // Everything derives from the top-up id, so a repeated call (a resumed saga) makes the same
      // intent and a confirmation with the same event id, which the webhook then deduplicates.
      const processor_ref = `sbx_pi_${compactId(topup.id)}`;
      const outcome = topup.sandbox_outcome ?? 'succeed';
      const message: ConfirmationMessage = {
        event_id: `sbx_evt_${compactId(topup.id)}`,
        topup_id: topup.id,
        processor_ref,
        outcome: outcome === 'decline' ? 'failed' : 'succeeded',
        amount: outcome === 'mismatch' ? mismatchedAmount(topup.amount) : topup.amount,
        currency: topup.currency,
      };
      await options.transport.send(SANDBOX_QUEUE, JSON.stringify(message), { delaySeconds: SANDBOX_CONFIRMATION_DELAY_SECONDS });
      const proof = createHmac('sha256', options.secret).update(`client_secret.${processor_ref}`).digest('hex').slice(0, 24);
      return { processor_ref, client_secret: `${processor_ref}_secret_${proof}` };
    },

    async refund(request: ProcessorRefundRequest): Promise<ProcessorRefund> {
      // No money moved at a sandbox processor, so there is nothing to give back; the refund id
      // derives from the top-up, as a real processor's idempotency key makes a repeat the same refund.
      if (!request.processor_ref.startsWith('sbx_pi_')) throw new AppError('invalid_request', `${request.processor_ref} is not a sandbox intent.`);
      return { refund_ref: `sbx_re_${compactId(request.topup_id)}` };
    },

    parseWebhook(rawBody: string, headers: Readonly<Record<string, string>>, now: Date): ProcessorEvent {
      verifySandboxSignature(headers, rawBody, options.secret, now);
      let parsed: z.infer<ReturnType<typeof schemas>['sandboxEvent']>;
      try {
        parsed = z.parse(schemas().sandboxEvent, JSON.parse(rawBody));
      } catch {
        throw new AppError('invalid_request', 'The signed body is not a sandbox event.');
      }
      return { id: parsed.id, type: parsed.type, processor_ref: parsed.processor_ref, topup_id: parsed.topup_id, outcome: parsed.outcome, amount: parsed.amount, currency: parsed.currency };
    },
  };
}

/** A confirmed amount that differs from the intent's, and is still a valid amount. */
export const mismatchedAmount = (amount: number): number => (amount > 1 ? amount - 1 : amount + 1);

/** The body the sandbox POSTs for one confirmation. */
function sandboxEventBody(event: { id: string; topup_id: string; processor_ref: string; outcome: 'succeeded' | 'failed'; amount: number; currency: string }): string {
  return JSON.stringify({
    id: event.id,
    type: event.outcome === 'succeeded' ? 'intent.succeeded' : 'intent.failed',
    topup_id: event.topup_id,
    processor_ref: event.processor_ref,
    outcome: event.outcome,
    amount: event.amount,
    currency: event.currency,
  });
}

/** The signed request the sandbox sends for one confirmation (also what tests replay or forge). */
export function sandboxWebhookRequest(
  event: { id: string; topup_id: string; processor_ref: string; outcome: 'succeeded' | 'failed'; amount: number; currency: string },
  secret: string,
  nowSeconds: number,
): { body: string; headers: Record<string, string> } {
  return signedSandboxRequest(sandboxEventBody(event), secret, nowSeconds);
}

/** The sandbox's queue worker: each queued confirmation, signed, to the wallet's processor webhook (../sandbox-delivery.ts). */
export function deliverSandboxConfirmations(event: SQSEvent, deps: SandboxDeliveryDeps): Promise<SQSBatchResponse> {
  return deliverSandboxMessages(event, deps, (messageBody) => {
    let message: ConfirmationMessage;
    try {
      message = z.parse(schemas().confirmationMessage, JSON.parse(messageBody));
    } catch {
      return undefined;
    }
    return { about: { topup_id: message.topup_id }, body: sandboxEventBody({ id: message.event_id, ...message }) };
  });
}
