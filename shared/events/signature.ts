import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `X-Wallet-Signature` scheme (spec part 6): `t=<unix seconds>,v1=<lowercase hex>`, the hex
 * being HMAC-SHA256 keyed by the endpoint secret over `t`, a dot, then the raw body bytes. The same
 * scheme signs the wallet's outgoing webhooks and verifies the sandbox processor's inbound ones.
 * During a secret rotation the header carries one `v1=` per live secret, newest first.
 *
 * Outgoing webhooks are also signed as Standard Webhooks define it (standardwebhooks.com):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one
 * space-separated entry per live secret. Its key is what a Standard Webhooks verifier (the
 * `standardwebhooks` and `svix` packages) takes from a `whsec_` secret: the bytes its base64 stands
 * for (`standardWebhookKey`). A secret is `whsec_` + standard base64 of 32 random bytes, so the one
 * string works as shown with both kinds of verifier. Secrets issued before were `whsec_` +
 * base64url (43 characters, never a multiple of 4 long), which those verifiers refuse: their
 * `webhook-signature` stays keyed by the secret's text, as it always was.
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
    .map((secret) => `v1,${createHmac('sha256', standardWebhookKey(secret)).update(`${messageId}.${timestampSeconds}.`).update(rawBody).digest('base64')}`)
    .join(' ');
}

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The HMAC key of `webhook-signature` for a secret: the bytes of a `whsec_<standard base64>`
 * secret, as a Standard Webhooks verifier decodes it; for any other secret (one issued before, in
 * base64url and 43 characters long), its text, which is what signed its deliveries until now.
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : '';
  return encoded.length > 0 && STANDARD_BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * A secret in the Standard Webhooks format: `whsec_` and the base64 of its `webhook-signature` key.
 * For a secret issued now, the secret itself; for one issued before, the base64 of its text.
 */
export const standardWebhooksSecret = (secret: string): string => `whsec_${standardWebhookKey(secret).toString('base64')}`;

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
