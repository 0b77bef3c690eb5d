import { GetCommand, TransactWriteCommand } from '../../shared/aws/dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { loadHandler } from '../../local/gateway';
import type { Platform } from '../../local/platform';
import { ManualClock } from '../../shared/kernel/clock';
import { eventKeys, outboxItem, type EventEnvelope } from '../../shared/events/outbox';
import { createRelayHandler, relayRecords, type RelayDeps } from '../../shared/wallet/webhooks/relay';
import { uuidv7 } from '../../shared/kernel/ids';
import type { StoreDeps } from '../../shared/wallet/deps';
import {
  DELIVERY_QUEUE,
  MAX_AUTOMATIC_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
  listAttempts,
  type DeliveryRecord,
} from '../../shared/wallet/webhooks/deliveries';
import type { DeliveryDeps } from '../../shared/wallet/webhooks/attempts';
import { createEndpoint, deleteEndpoint } from '../../shared/wallet/webhooks/endpoints';
import { redeliverEvent } from '../../shared/wallet/webhooks/events';
import { systemResolver } from '../../shared/wallet/webhooks/http';
import { webhookKeys } from '../../shared/wallet/webhooks/keys';
import { verifyWebhook } from '../../shared/wallet/webhooks/verify';
import { createDeliveryHandler } from '../../shared/wallet/webhooks/worker';
import { startTestPlatform } from '../support/platform';
import { startReceiver, type Receiver, type ScriptedAnswer } from './webhooks-receiver';
import { until } from '../support/time';
import { commitEvent } from '../support/events';

/**
 * Webhook delivery on the embedded platform: the real WalletTable stream drives the relay, the
 * in-process SQS carries attempts, and a real HTTP receiver on 127.0.0.1 answers. Time is a
 * ManualClock shared by the queue driver and the workers, so a day of retries takes no real time:
 * each step moves the clock and drains the queue.
 */

const stripe = new Stripe('sk_test_unused');
const clock = new ManualClock(new Date());
const actor = { kind: 'system', id: 'webhooks-test' };

let platform: Platform;
let deps: StoreDeps;
let receiver: Receiver;
let relayDeps: RelayDeps;
let deliveryDeps: DeliveryDeps;
/** Event ids whose first relay invocation crashes, as a relay that died after the domain commit. */
const crashOnce = new Set<string>();
let relayCrashes = 0;

const relay = createRelayHandler(() => relayDeps);
const crashingRelay = async (event: DynamoDBStreamEvent) => {
  const ids = event.Records.map((record) => record.dynamodb?.NewImage?.envelope?.M?.id?.S);
  const victim = ids.find((id) => id !== undefined && crashOnce.has(id));
  if (victim) {
    crashOnce.delete(victim);
    relayCrashes += 1;
    throw new Error('relay crashed before doing anything');
  }
  return relay(event);
};

beforeAll(async () => {
  receiver = await startReceiver();
  platform = await startTestPlatform({
    clock,
    handlerFor: async (entry) => {
      if (entry === 'events/relay') return crashingRelay;
      if (entry === 'webhooks/deliver') return createDeliveryHandler(() => deliveryDeps);
      return loadHandler(entry);
    },
  });
  // The queue is driven by hand (drain) so every step is deterministic.
  await platform.queues.stop();
  const client = localDocumentClient(platform.dynamodbEndpoint);
  deps = { client, table: platform.tables.wallet.name, clock, ids: uuidv7 };
  relayDeps = { ...deps, bus: platform.events, queue: platform.queues };
  deliveryDeps = { ...deps, queue: platform.queues, http: { resolve: systemResolver, sandboxTargets: 'loopback', timeoutMs: 1_000 } };
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

async function endpointFor(tenantId: string, path: string, options: { script?: ScriptedAnswer[]; thenStatus?: number; hang?: boolean; filters?: string[] } = {}) {
  const url = receiver.route(path, options);
  return createEndpoint(deps, { tenantId }, { url, ...(options.filters ? { event_filters: options.filters } : {}) }, { actor, requestId: uuidv7(), livemode: false });
}

const queued = () => platform.queues.depth(DELIVERY_QUEUE);

/** Waits (real time) until the relay has handed the delivery's first attempt to the queue. */
const waitForRelay = (eventId: string, endpointId: string, redeliveryId?: string) =>
  until(
    async () => {
      const result = await deps.client.send(new GetCommand({ TableName: deps.table, Key: webhookKeys.delivery(eventId, endpointId, redeliveryId), ConsistentRead: true }));
      return (result.Item?.scheduled_attempt ?? 0) >= 1;
    },
    15_000,
    `the relay queued ${eventId} for ${endpointId}`,
  );

async function delivery(eventId: string, endpointId: string): Promise<DeliveryRecord> {
  const result = await deps.client.send(new GetCommand({ TableName: deps.table, Key: webhookKeys.delivery(eventId, endpointId), ConsistentRead: true }));
  return result.Item as DeliveryRecord;
}

/** Moves the clock and delivers everything that became due. */
async function advance(seconds: number): Promise<void> {
  clock.advance(seconds * 1000);
  await platform.queues.drain();
}

function expectSigned(request: { headers: Record<string, unknown>; body: string }, secret: string, envelope: EventEnvelope) {
  const header = request.headers['x-wallet-signature'] as string;
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers['x-wallet-event-id']).toBe(envelope.id);
  // An independent implementation of the t=,v1= scheme, at the (manual) time of receipt.
  expect(() => stripe.webhooks.signature!.verifyHeader(request.body, header, secret, 300, undefined, clock.now().getTime())).not.toThrow();
  expect(verifyWebhook(request.body, header, secret, { now: clock.now() }).ok).toBe(true);
  expect(JSON.parse(request.body)).toEqual(envelope);
  return Number(/t=(\d+)/.exec(header)![1]);
}

describe('retries', () => {
  it('retries a failing receiver on the published schedule, records every attempt, then delivers once', async () => {
    const tenantId = uuidv7();
    const endpoint = await endpointFor(tenantId, '/flaky', { script: [500, 500, 503, 500] });
    const envelope = await commitEvent(deps, tenantId);
    await waitForRelay(envelope.id, endpoint.id);
    const start = clock.now().getTime();
    await platform.queues.drain();
    const requests = () => receiver.requests('/flaky');
    expect(requests()).toHaveLength(1);

    const timestamps = [expectSigned(requests()[0]!, endpoint.secret, envelope)];
    for (let attempt = 2; attempt <= 5; attempt += 1) {
      const delay = RETRY_DELAYS_SECONDS[attempt - 1]!;
      // One second early: nothing (delays over 900 s hop through the queue on the way).
      await advance(delay - 1);
      expect(requests(), `attempt ${attempt} is not due yet`).toHaveLength(attempt - 1);
      await advance(1);
      expect(requests(), `attempt ${attempt}`).toHaveLength(attempt);
      timestamps.push(expectSigned(requests()[attempt - 1]!, endpoint.secret, envelope));
    }
    // A day later: delivered once, nothing more.
    await advance(86_400);
    expect(requests()).toHaveLength(5);
    expect((await delivery(envelope.id, endpoint.id)).status).toBe('succeeded');

    // Signed with the current time on every attempt.
    const expected = [0, 60, 360, 1_260, 3_060].map((offset) => Math.floor((start + offset * 1000) / 1000));
    expect(timestamps).toEqual(expected);

    const attempts = (await listAttempts(deps, { tenantId }, { limit: 50 })).data;
    expect(attempts.map((a) => [a.attempt, a.status, a.response_code])).toEqual([
      [5, 'succeeded', 200],
      [4, 'failed', 500],
      [3, 'failed', 503],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    const at = attempts.map((a) => Date.parse(a.attempted_at)).reverse();
    expect(at.map((t) => (t - start) / 1000)).toEqual([0, 60, 360, 1_260, 3_060]);
    expect(attempts[1]!.next_attempt_at).toBe(attempts[0]!.attempted_at);
    expect(attempts[0]!.next_attempt_at).toBeNull();
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ event_id: envelope.id, event_type: 'fee_plan.set', endpoint_id: endpoint.id, manual: false, error: null });
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    }

    // A manual redelivery sends it again, signed at the new time.
    clock.advance(600_000);
    const redelivery = await redeliverEvent(deps, tenantId, envelope.id, { endpoint_id: endpoint.id });
    expect(redelivery.deliveries).toHaveLength(1);
    await waitForRelay(envelope.id, endpoint.id, redelivery.deliveries[0]!.id);
    await platform.queues.drain();
    expect(requests()).toHaveLength(6);
    const again = expectSigned(requests()[5]!, endpoint.secret, envelope);
    expect(again).toBe(Math.floor(clock.now().getTime() / 1000));
    expect(again).toBeGreaterThan(timestamps[4]!);
    const latest = (await listAttempts(deps, { tenantId }, { limit: 1 })).data[0]!;
    expect(latest).toMatchObject({ manual: true, attempt: 1, status: 'succeeded', delivery_id: redelivery.deliveries[0]!.id });

    // The redelivery's stream record arriving again queues nothing more.
    const manualKey = webhookKeys.delivery(envelope.id, endpoint.id, redelivery.deliveries[0]!.id);
    const manual = (await deps.client.send(new GetCommand({ TableName: deps.table, Key: manualKey, ConsistentRead: true }))).Item!;
    const replay = await relayRecords(relayDeps, [{ eventName: 'INSERT', dynamodb: { SequenceNumber: '9', NewImage: marshall({ ...manual, scheduled_attempt: 0 }) as never } }]);
    expect(replay).toMatchObject({ batchItemFailures: [], deliveries: 0, duplicates: 1 });
    await advance(3_600);
    expect(requests()).toHaveLength(6);
  });

  it(`gives up after ${MAX_AUTOMATIC_ATTEMPTS} attempts over about a day`, async () => {
    const tenantId = uuidv7();
    const endpoint = await endpointFor(tenantId, '/down', { thenStatus: 500 });
    const envelope = await commitEvent(deps, tenantId);
    await waitForRelay(envelope.id, endpoint.id);
    await platform.queues.drain();
    for (let attempt = 2; attempt <= MAX_AUTOMATIC_ATTEMPTS; attempt += 1) await advance(RETRY_DELAYS_SECONDS[attempt - 1]!);
    expect(receiver.requests('/down')).toHaveLength(MAX_AUTOMATIC_ATTEMPTS);
    await advance(2 * 86_400);
    expect(receiver.requests('/down')).toHaveLength(MAX_AUTOMATIC_ATTEMPTS);

    const record = await delivery(envelope.id, endpoint.id);
    expect(record).toMatchObject({ status: 'failed', attempts_made: 12, next_attempt_at: null });
    const total = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3600).toBeGreaterThan(22);
    expect(total / 3600).toBeLessThan(24);
    expect(platform.queues.deadLetters(DELIVERY_QUEUE)).toEqual([]);
  });

  it("stops a deleted endpoint's pending retries", async () => {
    const tenantId = uuidv7();
    const endpoint = await endpointFor(tenantId, '/deleted', { thenStatus: 500 });
    const envelope = await commitEvent(deps, tenantId);
    await waitForRelay(envelope.id, endpoint.id);
    await platform.queues.drain();
    expect(receiver.requests('/deleted')).toHaveLength(1);

    await deleteEndpoint(deps, { tenantId }, endpoint.id, { actor, requestId: uuidv7() });
    await advance(60);
    await advance(86_400);
    expect(receiver.requests('/deleted')).toHaveLength(1);
    expect(await delivery(envelope.id, endpoint.id)).toMatchObject({ status: 'canceled', cancel_reason: 'endpoint_deleted', attempts_made: 1 });
  });

  it('records a receiver that does not answer in time as a failed attempt with error timeout', async () => {
    const tenantId = uuidv7();
    const endpoint = await endpointFor(tenantId, '/hangs', { hang: true });
    const envelope = await commitEvent(deps, tenantId);
    await waitForRelay(envelope.id, endpoint.id);
    await platform.queues.drain();
    const [attempt] = (await listAttempts(deps, { tenantId }, { limit: 5 })).data;
    expect(attempt).toMatchObject({ attempt: 1, status: 'failed', response_code: null, error: 'timeout' });
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(900);
    // Its retries would outlive the test: stop them.
    await deleteEndpoint(deps, { tenantId }, endpoint.id, { actor, requestId: uuidv7() });
  });
});

describe('exactly one delivery per event and endpoint', () => {
  it('loses no event when the relay crashes between the domain commit and its work: the stream replays it', async () => {
    const tenantId = uuidv7();
    const endpoint = await endpointFor(tenantId, '/after-crash');
    const { item, envelope } = outboxItem(deps, { type: 'fee_plan.set', tenantId, data: { fee_plan: {} } });
    crashOnce.add(envelope.id);
    const crashesBefore = relayCrashes;
    await deps.client.send(new TransactWriteCommand({ TransactItems: [item] }));
    await waitForRelay(envelope.id, endpoint.id);
    await platform.queues.drain();
    expect(relayCrashes).toBe(crashesBefore + 1);
    expect(receiver.requests('/after-crash')).toHaveLength(1);
    expectSigned(receiver.requests('/after-crash')[0]!, endpoint.secret, envelope);
    expect(platform.events.published().filter((e) => JSON.parse(e.detail).id === envelope.id)).toHaveLength(1);
  });

  it('sends one delivery per endpoint when the stream record arrives again, even concurrently', async () => {
    const tenantId = uuidv7();
    const a = await endpointFor(tenantId, '/dup-a');
    const b = await endpointFor(tenantId, '/dup-b');
    const envelope = await commitEvent(deps, tenantId);
    await waitForRelay(envelope.id, a.id);
    await waitForRelay(envelope.id, b.id);
    await platform.queues.drain();

    const record = await streamRecordOf(tenantId, envelope.id);
    const first = await relayRecords(relayDeps, [record]);
    const [second, third] = await Promise.all([relayRecords(relayDeps, [record]), relayRecords(relayDeps, [record])]);
    for (const summary of [first, second, third]) expect(summary).toMatchObject({ batchItemFailures: [], events: 1, deliveries: 0, duplicates: 2 });
    await advance(3_600);
    expect(receiver.requests('/dup-a')).toHaveLength(1);
    expect(receiver.requests('/dup-b')).toHaveLength(1);
  });

  it('finishes the hand-over when the relay failed between writing the delivery and queueing it', async () => {
    const tenantId = uuidv7();
    const endpoint = await endpointFor(tenantId, '/half-done');
    const { item, envelope } = outboxItem(deps, { type: 'credit_limit.changed', tenantId, data: { credit_limit: {} } });
    const record: DynamoDBRecord = { eventName: 'INSERT', dynamodb: { SequenceNumber: '42', NewImage: marshall(item.Put!.Item!) as never } };
    // A first relay run writes the delivery, then SQS refuses the message: the record is reported failed.
    let sends = 0;
    const failingQueue = {
      send: async () => {
        sends += 1;
        throw new Error('SQS unavailable');
      },
    };
    const failed = await relayRecords({ ...relayDeps, queue: failingQueue }, [record]);
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: '42' }]);
    expect(sends).toBe(1);
    expect(await delivery(envelope.id, endpoint.id)).toMatchObject({ scheduled_attempt: 0, status: 'pending' });

    // The stream hands the record over again (here the real one, as the item commits now).
    await deps.client.send(new TransactWriteCommand({ TransactItems: [item] }));
    await waitForRelay(envelope.id, endpoint.id);
    await platform.queues.drain();
    expect(receiver.requests('/half-done')).toHaveLength(1);
    expect(await delivery(envelope.id, endpoint.id)).toMatchObject({ scheduled_attempt: 1, status: 'succeeded' });
  });

  it('makes one attempt when the queue delivers the same message twice', async () => {
    const tenantId = uuidv7();
    const endpoint = await endpointFor(tenantId, '/twice');
    const envelope = await commitEvent(deps, tenantId);
    await waitForRelay(envelope.id, endpoint.id);
    const depth = queued();
    await platform.queues.send(DELIVERY_QUEUE, JSON.stringify({ event_id: envelope.id, endpoint_id: endpoint.id, attempt: 1, not_before: clock.now().toISOString() }));
    expect(queued()).toBe(depth + 1);
    await platform.queues.drain();
    expect(receiver.requests('/twice')).toHaveLength(1);
  });
});

/** The INSERT record the stream carries for an event item, as Lambda delivers it. */
async function streamRecordOf(tenantId: string, eventId: string): Promise<DynamoDBRecord> {
  const result = await deps.client.send(new GetCommand({ TableName: deps.table, Key: eventKeys.event(tenantId, eventId), ConsistentRead: true }));
  return { eventName: 'INSERT', eventSource: 'aws:dynamodb', dynamodb: { SequenceNumber: '7', NewImage: marshall(result.Item!) as never } };
}
