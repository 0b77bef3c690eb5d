import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `X-Wallet-Signature` scheme (spec part 6): `t=<unix seconds>,v1=<lowercase hex>`, the hex
 * being HMAC-SHA256 keyed by the endpoint secret over `t`, a dot, then the raw body bytes. The same
 * scheme signs the wallet's outgoing webhooks and verifies the sandbox processor's inbound ones.
 */

export const SIGNATURE_VERSION = 'v1';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function signPayload(secret: string, rawBody: string | Buffer, timestampSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('hex');
  return `t=${timestampSeconds},${SIGNATURE_VERSION}=${digest}`;
}

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
  const expected = Buffer.from(signPayload(secret, rawBody, timestamp).split(`${SIGNATURE_VERSION}=`)[1]!, 'hex');
  const matches = signatures.some((signature) => timingSafeEqual(Buffer.from(signature, 'hex'), expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}
