import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `X-Wallet-Signature` scheme (spec part 6): `t=<unix seconds>,v1=<lowercase hex>`, the hex
 * being HMAC-SHA256 keyed by the endpoint secret over `t`, a dot, then the raw body bytes. The same
 * scheme signs the wallet's outgoing webhooks and verifies the sandbox processor's inbound ones.
 * During a secret rotation the header carries one `v1=` per live secret, newest first.
 *
 * Outgoing webhooks are also signed as Standard Webhooks define it (standardwebhooks.com):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one
 * space-separated entry per live secret. Both schemes use the same HMAC key: the bytes of the
 * secret as shown (`whsec_…`, ASCII). A Standard Webhooks verifier takes a secret in its own
 * format, `whsec_<base64 of the key bytes>`: `standardWebhooksSecret` writes it.
 */

export const SIGNATURE_VERSION = 'v1';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const hmacHex = (secret: string, timestampSeconds: number, rawBody: string | Buffer) =>
  createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('hex');

export function signPayload(secret: string, rawBody: string | Buffer, timestampSeconds: number): string {
  return signPayloadWith([secret], rawBody, timestampSeconds);
}

/** `t=<seconds>,v1=<hex>[,v1=<hex>]`: one signature per secret, in the order given. */
export function signPayloadWith(secrets: readonly string[], rawBody: string | Buffer, timestampSeconds: number): string {
  return [`t=${timestampSeconds}`, ...secrets.map((secret) => `${SIGNATURE_VERSION}=${hmacHex(secret, timestampSeconds, rawBody)}`)].join(',');
}

/** The `webhook-signature` value of Standard Webhooks: `v1,<base64>` per secret, space-separated. */
export function signStandardWebhook(secrets: readonly string[], messageId: string, timestampSeconds: number, rawBody: string | Buffer): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secret).update(`${messageId}.${timestampSeconds}.`).update(rawBody).digest('base64')}`)
    .join(' ');
}

/** Our secret in the Standard Webhooks format: `whsec_` and the base64 of the HMAC key's bytes. */
export const standardWebhooksSecret = (secret: string): string => `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' };

/**
 * Verifies a signature header against the raw body: constant-time comparison, and a timestamp
 * within `toleranceSeconds` of now in either direction. Any `v1` entry may match (secret rotation).
 */
export function verifySignature(
  header: string | undefined,
  rawBody: string | Buffer,
  secret: string,
  options: { nowSeconds: number; toleranceSeconds?: number },
): SignatureCheck {
  if (!header || header.length > 2048) return { ok: false, reason: 'malformed' };
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === 't' && value && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === SIGNATURE_VERSION && value && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(options.nowSeconds - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), 'hex');
  const matches = signatures.some((signature) => timingSafeEqual(Buffer.from(signature, 'hex'), expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}
