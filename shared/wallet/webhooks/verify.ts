import { DEFAULT_TOLERANCE_SECONDS, verifySignature, type SignatureCheck } from '../../events/signature';

/**
 * For receivers: checks an `X-Wallet-Signature` header against the raw body bytes as received
 * (never a re-serialised parse), in constant time, with the timestamp within `toleranceSeconds`
 * of `now` in either direction (default 300 s, spec part 6). Several `v1=` entries may be present;
 * any one matching is enough. The event id header is unsigned: deduplicate on the body's
 * (tenant_id, id) after this succeeds. Example receiver: docs/webhooks.md.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  signatureHeader: string | undefined,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date | number } = {},
): SignatureCheck {
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  return verifySignature(signatureHeader, rawBody, secret, {
    nowSeconds: Math.floor(nowMs / 1000),
    toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
  });
}
