import { createHmac } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import type { Clock } from '../../kernel/clock';
import { AppError } from '../../kernel/errors';
import { signPayload, verifySignature } from '../../events/signature';
import type { QueueTransport } from '../../aws/transport';
import type { ProcessorEvent, ProcessorRefund, ProcessorRefundRequest, TopupIntent, TopupIntentRequest, TopupProcessor } from './processors';
import { SANDBOX_SIGNATURE_HEADER } from './schemas';

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
/** A confirmation that is not accepted within this is retried by the queue. */
export const SANDBOX_DELIVERY_TIMEOUT_MS = 10_000;

const eventId = z.string().min(1).max(200);
const processorRef = z.string().min(1).max(200);
const currency = z.string().regex(/^[A-Z]{3}$/);
const amount = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** What the sandbox queues when it creates an intent: the confirmation it will send. */
const confirmationMessage = z
  .object({ event_id: eventId, topup_id: z.uuid(), processor_ref: processorRef, outcome: z.enum(['succeeded', 'failed']), amount, currency })
  .strict();
type ConfirmationMessage = z.infer<typeof confirmationMessage>;

/** The body the sandbox POSTs to the wallet. */
const sandboxEvent = z
  .object({
    id: eventId,
    type: z.enum(['intent.succeeded', 'intent.failed']),
    topup_id: z.uuid(),
    processor_ref: processorRef,
    outcome: z.enum(['succeeded', 'failed']),
    amount,
    currency,
  })
  .strict();

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
      const check = verifySignature(headers[SANDBOX_SIGNATURE_HEADER], rawBody, options.secret, { nowSeconds: Math.floor(now.getTime() / 1000) });
      if (!check.ok) {
        throw new AppError(
          'unauthenticated',
          check.reason === 'stale' ? 'The X-Sandbox-Signature timestamp is outside the tolerance.' : 'The X-Sandbox-Signature header is missing or does not match the body.',
        );
      }
      let parsed: z.infer<typeof sandboxEvent>;
      try {
        parsed = sandboxEvent.parse(JSON.parse(rawBody));
      } catch {
        throw new AppError('invalid_request', 'The signed body is not a sandbox event.');
      }
      return { id: parsed.id, type: parsed.type, processor_ref: parsed.processor_ref, topup_id: parsed.topup_id, outcome: parsed.outcome, amount: parsed.amount, currency: parsed.currency };
    },
  };
}

/** A confirmed amount that differs from the intent's, and is still a valid amount. */
export const mismatchedAmount = (amount: number): number => (amount > 1 ? amount - 1 : amount + 1);

/** The signed request the sandbox sends for one confirmation (also what tests replay or forge). */
export function sandboxWebhookRequest(
  event: { id: string; topup_id: string; processor_ref: string; outcome: 'succeeded' | 'failed'; amount: number; currency: string },
  secret: string,
  nowSeconds: number,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id: event.id,
    type: event.outcome === 'succeeded' ? 'intent.succeeded' : 'intent.failed',
    topup_id: event.topup_id,
    processor_ref: event.processor_ref,
    outcome: event.outcome,
    amount: event.amount,
    currency: event.currency,
  });
  return { body, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signPayload(secret, body, nowSeconds) } };
}

export interface SandboxDeliveryDeps {
  secret: string;
  /** `${WALLET_PUBLIC_URL}/v1/processor_webhooks/sandbox`. */
  webhookUrl: string;
  clock: Clock;
  fetch?: typeof fetch;
  log?: (message: string, details: Record<string, unknown>) => void;
}

/**
 * The sandbox's queue worker: POSTs each queued confirmation to the wallet, signed with the time
 * of this attempt. A non-2xx answer or no answer leaves the message for the queue to retry (then
 * the dead-letter queue), as a processor retries its webhooks; an unreadable message is dropped.
 */
export async function deliverSandboxConfirmations(event: SQSEvent, deps: SandboxDeliveryDeps): Promise<SQSBatchResponse> {
  const send = deps.fetch ?? fetch;
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      let message: ConfirmationMessage;
      try {
        message = confirmationMessage.parse(JSON.parse(record.body));
      } catch {
        deps.log?.('dropping an unreadable sandbox confirmation', { message_id: record.messageId });
        return;
      }
      const request = sandboxWebhookRequest({ id: message.event_id, ...message }, deps.secret, Math.floor(deps.clock.now().getTime() / 1000));
      try {
        const response = await send(deps.webhookUrl, { method: 'POST', headers: request.headers, body: request.body, signal: AbortSignal.timeout(SANDBOX_DELIVERY_TIMEOUT_MS) });
        await response.arrayBuffer();
        if (response.ok) return;
        deps.log?.('the wallet refused a sandbox confirmation; the queue retries it', { topup_id: message.topup_id, status: response.status });
      } catch (error) {
        deps.log?.('a sandbox confirmation got no answer; the queue retries it', { topup_id: message.topup_id, error: String(error) });
      }
      failures.push({ itemIdentifier: record.messageId });
    }),
  );
  return { batchItemFailures: failures };
}
