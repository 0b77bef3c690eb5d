import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from '../kernel/zod';
import { queueTransport } from '../aws/queue';
import { getItems, isConditionalCheckFailed, putItem, updateItem } from '../aws/store';
import { codec, str } from '../kernel/codec';
import { AppError } from '../kernel/errors';
import { onFirstUse } from '../kernel/lazy';
import { logger } from '../kernel/log';
import type { StoreDeps } from './deps';
import { walletKeys } from './keys';

/**
 * The records a request leaves about who reached what, written by a worker of their own instead of
 * the request's function, so that a function that only reads holds only read grants (docs/security.md,
 * "Least privilege"):
 *   - `api_key_used`:      an API key's `last_used_at` (a hint for people, at most once a minute per key);
 *   - `support_access`:    a vendor support engineer's request under a grant (spec part 4 item 16);
 *   - `cross_tenant_read`: a platform read of tenants' data (spec part 4 item 19);
 *   - `platform_cursor`:   where a page of the cross-tenant transaction listing stopped in each
 *                          tenant's ledger, so the next page resumes there (a cache: without it the
 *                          next page seeks its cursor from the newest transaction, same answer).
 * The request path sends one message to the `accessRecords` queue (SendMessage is its only grant);
 * the `authRecordAccess` worker writes it. Audit records are sent and acknowledged before the
 * request is answered: SQS stores a message durably before SendMessage returns, so a request whose
 * record could not be queued is refused (503) rather than answered unrecorded, and a queued record
 * is retried by the queue until written (then the dead-letter queue, alarmed, keeps it for redrive).
 * The record's id and time are fixed when it is sent, and the write is conditional on the id, so
 * a redelivered message writes it once.
 *
 * The worker writes only these four item shapes, keyed by what it computes itself: a message can
 * never make it write an arbitrary item. A resume point takes only each tenant's opaque ledger
 * cursor from the message; tenant names and ledgers come from the tenant records.
 */

export const ACCESS_RECORDS_QUEUE = 'accessRecords';

/** A tenant read for its name and ledger (the projection `id, name, ledger_id`); its own codec, as a root file imports no domain. */
const decodeTenantLedger = codec<{ id: string; name: string; ledger_id: string }>('tenant', { id: str, name: str, ledger_id: str });

/** The queue's messages, checked as they arrive (built on first use: ../kernel/lazy.ts). */
const schemas = onFirstUse(() => {
  const text = z.string().check(z.minLength(1), z.maxLength(1024));
  const timestamp = z.iso.datetime();

  const apiKeyUsed = z.object({ kind: z.literal('api_key_used'), key_id: z.string().check(z.regex(/^[0-9a-f-]{32,36}$/i)), at: timestamp });

  const supportAccess = z.object({
    kind: z.literal('support_access'),
    id: z.uuid(),
    grant_id: text,
    tenant_id: text,
    staff_id: text,
    operation: text,
    outcome: z.enum(['admitted', 'grant_ended']),
    at: timestamp,
  });

  const crossTenantRead = z.object({
    kind: z.literal('cross_tenant_read'),
    id: z.uuid(),
    actor: z.object({ type: text, id: text }),
    operation: text,
    filters: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
    count: z.int().check(z.minimum(0)),
    request_id: text,
    created_at: timestamp,
  });

  const platformCursor = z.object({
    kind: z.literal('platform_cursor'),
    filters_hash: z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/)),
    last_id: z.uuid(),
    positions: z.array(z.object({ tenant_id: z.uuid(), cursor: z.nullable(z.string().check(z.maxLength(2048))) })).check(z.maxLength(10_000)),
    created_at: timestamp,
  });
  return { accessRecord: z.discriminatedUnion('kind', [apiKeyUsed, supportAccess, crossTenantRead, platformCursor]), supportAccess, crossTenantRead, platformCursor };
});
type Schemas = ReturnType<typeof schemas>;

export type AccessRecord = z.infer<Schemas['accessRecord']>;
export type SupportAccessRecord = z.infer<Schemas['supportAccess']>;
export type CrossTenantReadRecord = z.infer<Schemas['crossTenantRead']>;
export type PlatformCursorRecord = z.infer<Schemas['platformCursor']>;

/** How long the resume point of a cross-tenant listing page stays (it makes the next page cost one ledger call per tenant). */
export const PLATFORM_CURSOR_RETENTION_SECONDS = 24 * 3600;

/** Where the request path hands its records: the queue in AWS and on the embedded platform; tests may write at once. */
export interface AccessRecorder {
  send(record: AccessRecord): Promise<void>;
}

/** The queue, through the installed transport (SQS in AWS, the embedded platform's driver locally). */
export const queuedAccessRecorder: AccessRecorder = {
  send: (record) => queueTransport().send(ACCESS_RECORDS_QUEUE, JSON.stringify(record)),
};

/**
 * Sends an audit record and waits for the queue to hold it. Refuses: service_unavailable (retryable)
 * when the queue cannot take it: the request is then not answered, so nothing goes unrecorded.
 */
export async function sendAuditRecord(recorder: AccessRecorder, record: AccessRecord): Promise<void> {
  try {
    await recorder.send(record);
  } catch (error) {
    logger.error('an access record could not be queued; the request is refused', { kind: record.kind, error: error as Error });
    throw new AppError('service_unavailable', 'The request could not be recorded; retry later.');
  }
}

/** last_used_at is a hint for people, not an audit trail: one write per key per minute at most. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** The write of one record (the worker's). Idempotent: a redelivered message changes nothing. */
export async function writeAccessRecord(deps: StoreDeps, record: AccessRecord): Promise<void> {
  try {
    switch (record.kind) {
      case 'api_key_used': {
        const threshold = new Date(Date.parse(record.at) - LAST_USED_RESOLUTION_MS).toISOString();
        // Only forward, and only past the resolution: many containers report the same minute.
        await updateItem(deps, walletKeys.apiKey(record.key_id), {
          expression: 'SET last_used_at = :at',
          condition: 'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at = :null OR last_used_at < :threshold)',
          values: { ':at': record.at, ':threshold': threshold, ':null': null },
        });
        return;
      }
      case 'support_access': {
        const { kind: _kind, ...fields } = record;
        const keys = walletKeys.accessLogEntry({ id: record.id, tenantId: record.tenant_id, actorId: record.staff_id, grantId: record.grant_id });
        await putItem(deps, { ...keys, entity: 'support_access', ...fields }, { condition: 'attribute_not_exists(pk)' });
        return;
      }
      case 'cross_tenant_read': {
        const { kind: _kind, ...entry } = record;
        // The tenant read, as the readers index it; null for a read across every tenant.
        const tenantId = typeof entry.filters.tenant_id === 'string' ? entry.filters.tenant_id : null;
        const keys = walletKeys.accessLogEntry({ id: record.id, tenantId, actorId: entry.actor.id, grantId: null });
        await putItem(deps, { ...keys, entity: 'access_log', ...entry }, { condition: 'attribute_not_exists(pk)' });
        return;
      }
      case 'platform_cursor': {
        const tenants = await getItems(deps, record.positions.map((position) => walletKeys.tenant(position.tenant_id)), { consistent: false });
        const byId = new Map(tenants.filter((item) => item !== undefined).map((item) => decodeTenantLedger(item)).map((tenant) => [tenant.id, tenant]));
        const positions = record.positions.flatMap((position) => {
          const tenant = byId.get(position.tenant_id);
          return tenant ? [{ tenant_id: position.tenant_id, tenant_name: tenant.name, ledger_id: tenant.ledger_id, cursor: position.cursor }] : [];
        });
        const created = Date.parse(record.created_at);
        await putItem(
          deps,
          {
            ...walletKeys.platformTransactionsCursor(record.filters_hash, record.last_id),
            entity: 'platform_transactions_cursor',
            positions,
            created_at: record.created_at,
            expires_at_epoch: Math.floor(created / 1000) + PLATFORM_CURSOR_RETENTION_SECONDS,
          },
          { condition: 'attribute_not_exists(pk)' },
        );
        return;
      }
    }
  } catch (error) {
    // Written already (a redelivery), a newer last use, or a key deleted since: nothing to do.
    if (isConditionalCheckFailed(error)) return;
    throw error;
  }
}

/**
 * The worker's handler: each message on its own. One whose write throws comes back after the
 * visibility timeout (batchItemFailures), and after the queue's receives goes to its dead-letter
 * queue (alarmed). So does a message that does not parse (nothing the platform sends is one): an
 * audit record is never dropped, it waits in the dead-letter queue for someone to look.
 */
export function createAccessRecordsHandler(deps: () => StoreDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const resolved = deps();
    const batchItemFailures: SQSBatchItemFailure[] = [];
    await Promise.all(
      event.Records.map(async (message) => {
        let parsed: AccessRecord;
        try {
          parsed = z.parse(schemas().accessRecord, JSON.parse(message.body));
        } catch (error) {
          logger.error('an access record does not parse; it goes to the dead-letter queue', { message_id: message.messageId, error: error as Error });
          batchItemFailures.push({ itemIdentifier: message.messageId });
          return;
        }
        try {
          await writeAccessRecord(resolved, parsed);
        } catch (error) {
          logger.warn('an access record was not written; the queue retries it', { message_id: message.messageId, kind: parsed.kind, error: error as Error });
          batchItemFailures.push({ itemIdentifier: message.messageId });
        }
      }),
    );
    return { batchItemFailures };
  };
}
