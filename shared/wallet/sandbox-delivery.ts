import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Clock } from '../kernel/clock';
import { signPayload, verifySignature } from '../events/signature';
import { AppError } from '../kernel/errors';

/**
 * How the sandboxes (the top-up processor, the payout rail) reach the wallet: a queue worker POSTs
 * each queued confirmation, signed with the time of this attempt, to the wallet's own public
 * webhook, exactly as an outside processor would. A non-2xx answer or no answer leaves the message
 * for the queue to retry (then its dead-letter queue), as processors retry their webhooks; an
 * unreadable message is dropped.
 */

/** The header both sandboxes sign their webhooks in (`t=<unix>,v1=<hex>`). */
export const SANDBOX_SIGNATURE_HEADER = 'x-sandbox-signature';
/** A confirmation that is not accepted within this is retried by the queue. */
export const SANDBOX_DELIVERY_TIMEOUT_MS = 10_000;

export interface SandboxDeliveryDeps {
  secret: string;
  /** The wallet's public webhook of this sandbox. */
  webhookUrl: string;
  clock: Clock;
  fetch?: typeof fetch;
  log?: (message: string, details: Record<string, unknown>) => void;
}

/** A queued confirmation as the webhook's JSON body, and what it is about (for logs); undefined when unreadable. */
export type ReadConfirmation = (messageBody: string) => { about: Record<string, string>; body: string } | undefined;

/** The signed request for one body at one moment (also what tests replay or forge). */
export function signedSandboxRequest(body: string, secret: string, nowSeconds: number): { body: string; headers: Record<string, string> } {
  return { body, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signPayload(secret, body, nowSeconds) } };
}

export async function deliverSandboxMessages(event: SQSEvent, deps: SandboxDeliveryDeps, read: ReadConfirmation): Promise<SQSBatchResponse> {
  const send = deps.fetch ?? fetch;
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const confirmation = read(record.body);
      if (!confirmation) {
        deps.log?.('dropping an unreadable sandbox confirmation', { message_id: record.messageId });
        return;
      }
      const request = signedSandboxRequest(confirmation.body, deps.secret, Math.floor(deps.clock.now().getTime() / 1000));
      try {
        const response = await send(deps.webhookUrl, { method: 'POST', headers: request.headers, body: request.body, signal: AbortSignal.timeout(SANDBOX_DELIVERY_TIMEOUT_MS) });
        await response.arrayBuffer();
        if (response.ok) return;
        deps.log?.('the wallet refused a sandbox confirmation; the queue retries it', { ...confirmation.about, status: String(response.status) });
      } catch (error) {
        deps.log?.('a sandbox confirmation got no answer; the queue retries it', { ...confirmation.about, error: String(error) });
      }
      failures.push({ itemIdentifier: record.messageId });
    }),
  );
  return { batchItemFailures: failures };
}

/** How a sandbox webhook checks its signature over the raw body. Refuses: unauthenticated (missing, malformed, stale or wrong). */
export function verifySandboxSignature(headers: Readonly<Record<string, string>>, rawBody: string, secret: string, now: Date): void {
  const check = verifySignature(headers[SANDBOX_SIGNATURE_HEADER], rawBody, secret, { nowSeconds: Math.floor(now.getTime() / 1000) });
  if (check.ok) return;
  throw new AppError(
    'unauthenticated',
    check.reason === 'stale' ? 'The X-Sandbox-Signature timestamp is outside the tolerance.' : 'The X-Sandbox-Signature header is missing or does not match the body.',
  );
}
