import { signPayloadWith, signStandardWebhook } from '../../events/signature';
import { isConditionalCheckFailed, updateItem } from '../../aws/store';
import type { StoreDeps } from '../deps';
import type { EndpointRecord } from './endpoints';
import { webhookKeys } from './keys';

/**
 * The headers of one delivery attempt, signed now (docs/webhooks.md "Delivery format"):
 *  - ours (spec part 6): `X-Wallet-Signature: t=<seconds>,v1=<hex>` and the advisory
 *    `X-Wallet-Event-Id`;
 *  - Standard Webhooks, alongside: `webhook-id` (the event id, the same on every attempt, so
 *    receivers deduplicate on it), `webhook-timestamp` (the same seconds as `t`) and
 *    `webhook-signature`.
 * During a rotation's overlap both carry one signature per secret, the new one first. Each secret
 * keys X-Wallet-Signature by its text and webhook-signature by the bytes it encodes (one issued
 * before the secrets were standard base64: by its text; shared/events/signature.ts).
 */

/** The secrets that sign at `now`: the current one, and the previous one until its overlap ends. */
export function signingSecrets(endpoint: Pick<EndpointRecord, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, now: Date): string[] {
  const secrets = endpoint.secret ? [endpoint.secret] : [];
  if (endpoint.previous_secret && endpoint.previous_secret_expires_at && Date.parse(endpoint.previous_secret_expires_at) > now.getTime()) secrets.push(endpoint.previous_secret);
  return secrets;
}

export function deliveryHeaders(secrets: readonly string[], eventId: string, body: string, timestampSeconds: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-wallet-signature': signPayloadWith(secrets, body, timestampSeconds),
    'x-wallet-event-id': eventId,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signStandardWebhook(secrets, eventId, timestampSeconds, body),
  };
}

/**
 * Erases a previous secret whose overlap has ended (the first attempt after it does), so no
 * secret outlives its use; conditioned on the overlap seen, so a newer rotation is left alone.
 */
export async function forgetExpiredSecret(deps: StoreDeps, endpoint: EndpointRecord, now: Date): Promise<void> {
  if (!endpoint.previous_secret_expires_at || Date.parse(endpoint.previous_secret_expires_at) > now.getTime()) return;
  try {
    await updateItem(deps, webhookKeys.endpoint(endpoint.id), {
      expression: 'REMOVE previous_secret, previous_secret_expires_at',
      condition: 'previous_secret_expires_at = :seen',
      values: { ':seen': endpoint.previous_secret_expires_at },
    });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
