import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { EventBusTransport, QueueTransport } from '../../aws/transport';
import type { StoreDeps } from '../deps';
import { getItem } from '../../aws/store';
import { endpointsReceiving, type EndpointRecord } from './endpoints';
import { ensureAutomaticDelivery, scheduleFirstAttempt, toDeliveryRecord } from './deliveries';
import { envelopeOf } from '../../events/outbox';
import { METRIC, recordMetric } from '../../kernel/metrics';

/**
 * The outbox relay: a WalletTable stream worker. Domain events are items written in the same
 * transaction as their state (shared/events/outbox.ts); the stream carries every committed item
 * here, at least once and in order per item. For each new event item this
 *  1. publishes the envelope to the EventBridge bus (source `wallet`, detail-type = event type);
 *  2. writes one delivery per active webhook endpoint that receives it, under a condition, and
 *     queues its first attempt (shared/wallet/webhooks/deliveries.ts).
 * A manual redelivery (a delivery item written by POST /v1/webhook_events/{id}/redeliver), and a
 * delivery a recovery armed again (a new round, ./recovery.ts), are queued here too, so routes
 * need no queue of their own. A disabled endpoint's deliveries are written skipped, not queued.
 *
 * A crash anywhere loses nothing: the batch fails from the first unfinished record on
 * (`batchItemFailures`), the stream replays it, and the conditional delivery write turns the
 * replay into "already done" per endpoint. The bus may see an event twice (at least once, as
 * EventBridge itself): its consumers deduplicate on the envelope id.
 */

export const EVENT_SOURCE = 'wallet';

export interface RelayDeps extends StoreDeps {
  bus: EventBusTransport;
  queue: QueueTransport;
  log?: (message: string, details?: Record<string, unknown>) => void;
}

export interface RelaySummary {
  events: number;
  deliveries: number;
  duplicates: number;
  /** Deliveries written skipped (disabled endpoints). */
  skipped: number;
}

export function createRelayHandler(deps: () => RelayDeps) {
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const { batchItemFailures } = await relayRecords(deps(), event.Records);
    return { batchItemFailures };
  };
}

/**
 * Relays records in order and stops at the first failure: the stream retries from that record,
 * so later ones would be replayed anyway (and must not overtake it).
 */
export async function relayRecords(deps: RelayDeps, records: readonly DynamoDBRecord[]): Promise<DynamoDBBatchResponse & RelaySummary> {
  const summary: RelaySummary = { events: 0, deliveries: 0, duplicates: 0, skipped: 0 };
  // One endpoint read per owner per batch: a batch is mostly one tenant's burst.
  const endpoints = new Map<string, Promise<EndpointRecord[]>>();
  for (const record of records) {
    try {
      const relayed = relayedKind(record);
      if (!relayed) continue;
      if (relayed === 'event') {
        const envelope = envelopeOf(eventItemOf(record));
        await deps.bus.publish([{ source: EVENT_SOURCE, detailType: envelope.type, detail: JSON.stringify(envelope) }]);
        // Committed (the event's time) to published: how far behind the relay runs.
        recordMetric(METRIC.relayLag, 'Milliseconds', Math.max(0, deps.clock.now().getTime() - Date.parse(envelope.created_at)));
        const receivers = await endpointsReceiving(deps, envelope, endpoints);
        const results = await Promise.all(receivers.map((endpoint) => ensureAutomaticDelivery(deps, envelope, endpoint)));
        summary.events += 1;
        summary.deliveries += results.filter((r) => r === 'scheduled').length;
        summary.duplicates += results.filter((r) => r === 'duplicate').length;
        summary.skipped += results.filter((r) => r === 'skipped').length;
      } else {
        // The current record, not the image: a replayed image would not show that it was queued.
        const delivery = await getItem(deps, keyOf(record));
        if (!delivery) continue; // expired (30 days): nothing left to deliver
        const result = await scheduleFirstAttempt(deps, toDeliveryRecord(delivery));
        summary[result === 'scheduled' ? 'deliveries' : 'duplicates'] += 1;
      }
    } catch (error) {
      deps.log?.('relay failed on a stream record; the stream retries from it', { sequence_number: record.dynamodb?.SequenceNumber, error: String(error) });
      const failed = record.dynamodb?.SequenceNumber;
      // Without a sequence number Lambda cannot resume at the record: fail the whole batch.
      if (!failed) throw error;
      return { batchItemFailures: [{ itemIdentifier: failed }], ...summary };
    }
  }
  return { batchItemFailures: [], ...summary };
}

/**
 * What the relay does with a record: a new event; or a delivery to hand to the queue (a manual
 * redelivery written, or a round armed by a recovery that has just become ready: pending, nothing
 * scheduled, round > 0, awaiting no earlier recovered event; ./recovery-chain.ts).
 */
function relayedKind(record: DynamoDBRecord): 'event' | 'delivery' | undefined {
  const image = record.dynamodb?.NewImage;
  const entity = image?.entity?.S;
  if (record.eventName === 'INSERT' && entity === 'event') return 'event';
  if (entity !== 'webhook_delivery') return undefined;
  if (record.eventName === 'INSERT' && image?.origin?.S === 'manual') return 'delivery';
  // Armed and released (or armed with nothing to await) by this change, not merely linked to a successor.
  const armed = record.eventName === 'MODIFY' && readyRound(image) && !readyRound(record.dynamodb?.OldImage);
  return armed ? 'delivery' : undefined;
}

/** A round a recovery armed, not yet handed to the queue, awaiting nothing. */
const readyRound = (image: NonNullable<DynamoDBRecord['dynamodb']>['NewImage']): boolean =>
  image?.status?.S === 'pending' && image.scheduled_attempt?.N === '0' && Number(image.round?.N ?? '0') > 0 && image.awaiting === undefined;

const keyOf = (record: DynamoDBRecord) => ({
  pk: (record.dynamodb?.Keys?.pk ?? record.dynamodb?.NewImage?.pk)?.S ?? '',
  sk: (record.dynamodb?.Keys?.sk ?? record.dynamodb?.NewImage?.sk)?.S ?? '',
});

/** The inserted event item, from the stream image (events never change once written). */
function eventItemOf(record: DynamoDBRecord): Record<string, unknown> {
  return unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>);
}
