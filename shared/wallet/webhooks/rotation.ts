import type { Principal } from '../../http/principal';
import type { Outcome } from '../../http/outcome';
import type { WalletDeps } from '../deps';
import { defineOperation } from '../saga/registry';
import { runOperation } from '../saga/engine';
import { endpointAudit, liveEndpointOf, newSecret, withSecret, type EndpointRecord } from './endpoints';
import { webhookKeys, type Owner } from './keys';

/** A rotation's overlap when the request names none: a day for every receiver to take the new secret. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;

/**
 * Secret rotation without a gap (docs/webhooks.md "Rotating a secret"): a new secret, shown once,
 * becomes the endpoint's secret; the one it replaces keeps signing every delivery beside it until
 * the overlap ends (default 24 h, at most 7 days, 0 = at once), then it is erased. Receivers
 * install the new secret during the overlap, when either secret verifies. A rotation during an
 * overlap drops the oldest secret at once: at most two sign.
 *
 * Idempotent under its Idempotency-Key like the wallet's other writes (the saga's key record,
 * shared/wallet/saga.ts): a retry answers the same new secret, it does not rotate twice. The
 * endpoint's change and its audit record commit in one transaction, conditioned on the secret
 * read, so two concurrent rotations under different keys both happen, one after the other.
 */

interface RotateRequest {
  tenant_id: string;
  client_id: string | null;
  endpoint_id: string;
  overlap_seconds: number;
}

export const ROTATE_SECRET = defineOperation('webhooks.rotate_secret', async ({ runtime, principal, request, requestId }) => ({
  post: async () => undefined,
  // Another rotation committed between the read and the write: read again and rotate after it.
  freshCommit: true,
  commit: async () => {
    const input = request as RotateRequest;
    const owner: Owner = { tenantId: input.tenant_id, ...(input.client_id ? { clientId: input.client_id } : {}) };
    const before = await liveEndpointOf(runtime, owner, input.endpoint_id);
    const now = runtime.clock.now();
    const secret = newSecret();
    const overlapUntil = input.overlap_seconds > 0 && before.secret ? new Date(now.getTime() + input.overlap_seconds * 1000).toISOString() : null;
    const after: EndpointRecord = { ...before, secret, updated_at: now.toISOString() };
    delete after.previous_secret;
    delete after.previous_secret_expires_at;
    if (overlapUntil) Object.assign(after, { previous_secret: before.secret, previous_secret_expires_at: overlapUntil });
    return {
      items: [
        {
          Update: {
            TableName: runtime.table,
            Key: webhookKeys.endpoint(before.id),
            UpdateExpression: overlapUntil
              ? 'SET secret = :secret, previous_secret = :old, previous_secret_expires_at = :until, updated_at = :now'
              : 'SET secret = :secret, updated_at = :now REMOVE previous_secret, previous_secret_expires_at',
            ConditionExpression: 'secret = :old AND #status IN (:active, :disabled)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':secret': secret,
              ':old': before.secret,
              ':now': after.updated_at,
              ':active': 'active',
              ':disabled': 'disabled',
              ...(overlapUntil ? { ':until': overlapUntil } : {}),
            },
          },
        },
        endpointAudit(runtime, { actor: principal, action: 'rotate_secret', before, after, requestId }),
      ],
      status: 200,
      body: withSecret(after, secret),
    };
  },
}));

/**
 * Rotates a live endpoint's secret once per Idempotency-Key. Refuses: not_found (unknown, another
 * owner's, deleted), idempotency_key_reuse, idempotency_in_flight.
 */
export async function rotateSecret(
  runtime: WalletDeps,
  principal: Principal,
  owner: Owner,
  endpointId: string,
  body: { overlap_seconds?: number } | undefined,
  options: { idempotencyKey: string; requestId: string },
): Promise<Outcome> {
  // Checked first, so an unknown id leaves no key record behind.
  await liveEndpointOf(runtime, owner, endpointId);
  const request: RotateRequest = {
    tenant_id: owner.tenantId,
    client_id: owner.clientId ?? null,
    endpoint_id: endpointId,
    overlap_seconds: body?.overlap_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS,
  };
  return runOperation(runtime, { operation: ROTATE_SECRET, tenantId: owner.tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId });
}
