import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record as WireRecord, type AttributeValue } from '@aws-sdk/client-dynamodb-streams';
import type { StreamFilterNode, StreamFilterPattern } from '../../shared/workers';
import { sdkClientConfig } from '../../shared/aws/clients';
import { localDatabaseCredentials } from '../../shared/aws/dynamodb';
import { LOCAL_REGION } from '../dynamodb';
import { workerContext } from './context';
import { inInvocation } from './invocations';

/**
 * Polls a DynamoDB Local stream for real (DescribeStream, GetShardIterator, GetRecords, through
 * @aws-sdk/client-dynamodb-streams with the platform's client settings; each record is turned back
 * into the JSON form Lambda hands over: base64 binaries, epoch-seconds times) and invokes
 * each stream worker with the DynamoDBStreamEvent Lambda's event source mapping would build: a page
 * of up to 1,000 records read, filtered, and handed over in batches of up to the worker's batch
 * size. Each worker keeps its own position per shard, like one event source mapping per function. A failed
 * batch is retried (from the first reported `batchItemFailures` item when the worker reports them)
 * with backoff, blocking its shard, as Lambda does; after `maxRetries` it is logged and skipped,
 * which is what an on-failure destination does in AWS. Positions are checkpointed to a file when
 * one is given, so `npm start` resumes where it stopped.
 */

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export interface StreamWorker {
  name: string;
  handler: StreamHandler;
  batchSize: number;
  /** The function's configured timeout: its invocations' deadline (shared/kernel/retry.ts). */
  timeoutSeconds: number;
  /** The event source mapping's filter patterns (shared/workers.ts): records matching none are passed over. */
  filters?: readonly StreamFilterPattern[];
}

export interface StreamDriverOptions {
  endpoint: string;
  streamArn: string;
  workers: readonly StreamWorker[];
  checkpointFile?: string;
  pollMs?: number;
  maxRetries?: number;
  onError?: (worker: string, error: unknown) => void;
  /** Expected events worth a line (not failures). */
  onNotice?: (worker: string, message: string) => void;
}

type Checkpoints = Record<string, Record<string, string>>; // worker -> shard -> last sequence number

export class StreamDriver {
  private readonly client: DynamoDBStreamsClient;
  private readonly checkpoints: Checkpoints;
  private readonly finishedShards = new Map<string, Set<string>>();
  private readonly activeShards = new Map<string, Set<string>>();
  private readonly loops: Promise<void>[] = [];
  private stopped = false;
  /** Aborted by `stop` and `pause`: the loops' waits end at once instead of at their next poll. */
  private wake = new AbortController();
  private lastActivity = Date.now();
  /** When the last GetRecords that found a shard drained was sent, per worker and shard. */
  private readonly drainedAt = new Map<string, number>();
  private busy = 0;

  constructor(private readonly options: StreamDriverOptions) {
    // The stream lives in its table's database: arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>.
    const credentials = localDatabaseCredentials(options.streamArn.split('/')[1] ?? '');
    this.client = new DynamoDBStreamsClient(sdkClientConfig({ endpoint: options.endpoint, region: LOCAL_REGION, credentials }));
    this.checkpoints = readCheckpoints(options.checkpointFile);
  }

  start(): void {
    for (const worker of this.options.workers) {
      this.finishedShards.set(worker.name, new Set());
      this.activeShards.set(worker.name, new Set());
      this.loops.push(this.discover(worker));
    }
  }

  async stop(): Promise<void> {
    await this.pause();
    this.client.destroy();
  }

  /**
   * Stops reading until `resume`, keeping every position: what is written meanwhile is read after,
   * in pages, as Lambda's poller reads a backlog (a test that must write a stretch before any of
   * it is read, whatever the machine's speed).
   */
  async pause(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    await Promise.allSettled(this.loops);
    this.loops.length = 0;
  }

  resume(): void {
    this.stopped = false;
    this.wake = new AbortController();
    this.start();
  }

  /**
   * Resolves once every worker has read each of its shards to the end since this call (a GetRecords
   * sent after it came back empty), handles nothing, and has handled no record for `quietMs`: what
   * was written before the call has then reached every worker whose filters admit it (tests wait on
   * the relay with it). Filtered records invoke nothing, so activity alone cannot tell.
   */
  async settle(quietMs = 300, timeoutMs = 15_000): Promise<void> {
    const since = Date.now();
    const deadline = since + timeoutMs;
    while (Date.now() < deadline) {
      const drained = [...this.activeShards].every(([worker, shards]) => [...shards].every((shard) => (this.drainedAt.get(drainKey(worker, shard)) ?? -1) >= since));
      if (drained && this.busy === 0 && Date.now() - this.lastActivity >= quietMs) return;
      await delay(50);
    }
    throw new Error('stream workers did not settle');
  }

  /** A loop's wait between polls, cut short by `stop` or `pause`. */
  private idle(ms: number): Promise<void> {
    return delay(ms, undefined, { signal: this.wake.signal }).catch(() => undefined);
  }

  private async discover(worker: StreamWorker): Promise<void> {
    const shardLoops: Promise<void>[] = [];
    while (!this.stopped) {
      try {
        const description = await this.client.send(new DescribeStreamCommand({ StreamArn: this.options.streamArn }));
        const finished = this.finishedShards.get(worker.name)!;
        const active = this.activeShards.get(worker.name)!;
        for (const shard of description.StreamDescription?.Shards ?? []) {
          const id = shard.ShardId!;
          if (active.has(id) || finished.has(id)) continue;
          // A child shard waits for its parent so records stay in order per key.
          const parent = shard.ParentShardId;
          const parentKnown = (description.StreamDescription?.Shards ?? []).some((s) => s.ShardId === parent);
          if (parent && parentKnown && !finished.has(parent)) continue;
          active.add(id);
          shardLoops.push(
            this.pollShard(worker, id).catch((error: unknown) => {
              // Dropped from the active set: the next discovery pass starts it again from its checkpoint.
              active.delete(id);
              if (!this.stopped) this.options.onError?.(worker.name, error);
            }),
          );
        }
      } catch (error) {
        if (!this.stopped) this.options.onError?.(worker.name, error);
      }
      await this.idle(1000);
    }
    await Promise.allSettled(shardLoops);
  }

  private async pollShard(worker: StreamWorker, shardId: string): Promise<void> {
    const pollMs = this.options.pollMs ?? 100;
    let iterator = await this.startingIterator(worker, shardId);
    let failures = 0;
    while (!this.stopped && iterator) {
      let page;
      const sentAt = Date.now();
      try {
        page = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: RECORDS_PER_READ }));
      } catch (error) {
        await this.idle(pollMs);
        const name = (error as { name?: string }).name;
        if (this.trimmedBeforeAnyRecord(error, worker, shardId)) {
          // Expected, not a failure: DynamoDB Local answers a TRIM_HORIZON iterator of a shard that
          // has no record yet this way (every first start). Ask again until the shard has records.
          this.drainedAt.set(drainKey(worker.name, shardId), sentAt);
          iterator = await this.startingIterator(worker, shardId);
          continue;
        }
        if (name === 'TrimmedDataAccessException') {
          // The checkpoint is older than the stream's 24 h retention: those records are gone
          // (Lambda's event source mapping would have lost them too); go on from the oldest one.
          this.options.onNotice?.(worker.name, 'records before the stream retention were trimmed; resuming at the oldest record');
          iterator = await this.iterator(shardId, 'TRIM_HORIZON');
          continue;
        }
        if (name !== 'ExpiredIteratorException') this.options.onError?.(worker.name, error);
        // An iterator expires after 15 minutes; start again from the checkpoint.
        iterator = await this.iteratorAfterCheckpoint(worker, shardId);
        continue;
      }
      const records = page.Records ?? [];
      if (records.length === 0) {
        this.drainedAt.set(drainKey(worker.name, shardId), sentAt);
        iterator = page.NextShardIterator;
        await this.idle(pollMs);
        continue;
      }
      // As Lambda's poller: a page of the shard, its records filtered, then the worker invoked with
      // batches of up to batchSize of those that passed (the filter patterns read only typed
      // values, which DynamoDB Local writes as AWS does, so the wire record filters as Lambda's would).
      const delivered = records.map((r) => lambdaRecord(r, this.options.streamArn)).filter((r) => passesFilters(r, worker.filters));
      let retryFrom: string | undefined;
      for (let first = 0; first < delivered.length && retryFrom === undefined; first += worker.batchSize) {
        const batch = delivered.slice(first, first + worker.batchSize);
        const lastOfBatch = batch[batch.length - 1]!.dynamodb!.SequenceNumber!;
        this.busy += 1;
        try {
          const context = workerContext(worker.name, worker.timeoutSeconds);
          const response = await inInvocation(context, () => worker.handler({ Records: batch }, context));
          const firstFailed = response?.batchItemFailures?.[0]?.itemIdentifier;
          if (firstFailed) throw new PartialFailure(firstFailed);
          this.checkpoint(worker, shardId, lastOfBatch);
          failures = 0;
        } catch (error) {
          failures += 1;
          if (failures > (this.options.maxRetries ?? 10)) {
            this.options.onError?.(worker.name, error);
            this.checkpoint(worker, shardId, lastOfBatch);
            failures = 0;
          } else {
            await this.idle(Math.min(5000, 100 * 2 ** failures));
            retryFrom = error instanceof PartialFailure ? error.sequenceNumber : batch[0]!.dynamodb!.SequenceNumber!;
          }
        } finally {
          this.busy -= 1;
          this.lastActivity = Date.now();
        }
      }
      if (retryFrom !== undefined) {
        iterator = await this.iterator(shardId, 'AT_SEQUENCE_NUMBER', retryFrom);
        continue;
      }
      // Past the page, the records no pattern admitted included: Lambda moves past them without an invocation.
      this.checkpoint(worker, shardId, records[records.length - 1]!.dynamodb!.SequenceNumber!);
      iterator = page.NextShardIterator;
      // A short page means the shard is drained: poll again at the polling rate, as Lambda does,
      // not at once, so a burst is handed over in whole batches instead of in ones.
      if (records.length < RECORDS_PER_READ) await this.idle(pollMs);
    }
    this.activeShards.get(worker.name)!.delete(shardId);
    this.finishedShards.get(worker.name)!.add(shardId);
  }

  /** DynamoDB Local's answer to TRIM_HORIZON on a shard that has had no record yet (nothing to resume from): wait, not fail. */
  private trimmedBeforeAnyRecord(error: unknown, worker: StreamWorker, shardId: string): boolean {
    return (error as { name?: string }).name === 'TrimmedDataAccessException' && this.checkpoints[worker.name]?.[shardId] === undefined;
  }

  /**
   * The first iterator of a shard. DynamoDB Local may refuse TRIM_HORIZON on a shard that has no
   * record yet with TrimmedDataAccessException, at GetShardIterator as well as at GetRecords: on a
   * first start that is the normal state, not an error to print, so wait and ask again.
   */
  private async startingIterator(worker: StreamWorker, shardId: string): Promise<string | undefined> {
    for (;;) {
      const sentAt = Date.now();
      try {
        return await this.iteratorAfterCheckpoint(worker, shardId);
      } catch (error) {
        if (!this.trimmedBeforeAnyRecord(error, worker, shardId)) throw error;
        // Nothing in the shard yet: as drained as it gets.
        this.drainedAt.set(drainKey(worker.name, shardId), sentAt);
        if (this.stopped) return undefined;
        await this.idle(this.options.pollMs ?? 100);
      }
    }
  }

  private iteratorAfterCheckpoint(worker: StreamWorker, shardId: string): Promise<string | undefined> {
    const last = this.checkpoints[worker.name]?.[shardId];
    return last ? this.iterator(shardId, 'AFTER_SEQUENCE_NUMBER', last) : this.iterator(shardId, 'TRIM_HORIZON');
  }

  private async iterator(
    shardId: string,
    type: 'TRIM_HORIZON' | 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER',
    sequenceNumber?: string,
  ): Promise<string | undefined> {
    const result = await this.client.send(
      new GetShardIteratorCommand({
        StreamArn: this.options.streamArn,
        ShardId: shardId,
        ShardIteratorType: type,
        ...(sequenceNumber === undefined ? {} : { SequenceNumber: sequenceNumber }),
      }),
    );
    return result.ShardIterator;
  }

  private checkpoint(worker: StreamWorker, shardId: string, sequenceNumber: string): void {
    const positions = (this.checkpoints[worker.name] ??= {});
    // A page whose last record was its last batch's is already there: no second write of the file.
    if (positions[shardId] === sequenceNumber) return;
    positions[shardId] = sequenceNumber;
    if (this.options.checkpointFile) writeFileSync(this.options.checkpointFile, JSON.stringify(this.checkpoints));
  }
}

const drainKey = (worker: string, shardId: string) => `${worker}\n${shardId}`;

/** What one GetRecords reads at most (DynamoDB Streams' limit), as Lambda's poller asks. */
const RECORDS_PER_READ = 1000;

class PartialFailure extends Error {
  constructor(readonly sequenceNumber: string) {
    super(`batch item ${sequenceNumber} failed`);
  }
}

type Image = NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];

/**
 * The record as Lambda delivers it: epoch-seconds times, source ARN and region added, images as AWS
 * writes them into the event's JSON (binaries in base64).
 */
function lambdaRecord(record: WireRecord, streamArn: string): DynamoDBRecord {
  const data = record.dynamodb!;
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    // DynamoDB Local says `ddblocal`; Lambda says the table's region.
    awsRegion: LOCAL_REGION,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: data.ApproximateCreationDateTime === undefined ? undefined : Math.floor(data.ApproximateCreationDateTime.getTime() / 1000),
      Keys: data.Keys === undefined ? undefined : awsImage(data.Keys),
      NewImage: data.NewImage === undefined ? undefined : awsImage(data.NewImage),
      OldImage: data.OldImage === undefined ? undefined : awsImage(data.OldImage),
      SequenceNumber: data.SequenceNumber,
      SizeBytes: data.SizeBytes,
      StreamViewType: data.StreamViewType as NonNullable<DynamoDBRecord['dynamodb']>['StreamViewType'],
    },
  };
}

/**
 * An image as DynamoDB's own stream writes it into Lambda's JSON event. DynamoDB Local writes an
 * empty map (`{"M":{}}`, e.g. a transfer's empty metadata) as an untyped `{}`, which the SDK reads
 * as a value of no known type; every other value keeps its type (an empty list is `{"L":[]}`, an
 * empty string `{"S":""}`, a null `{"NULL":true}`), so such a value can only be that map. Binaries,
 * which the SDK decodes, go back to base64 as the event carries them.
 */
function awsImage(image: Record<string, AttributeValue>): Image {
  const value = (attribute: AttributeValue): unknown => {
    const known = Object.entries(attribute).filter(([type, v]) => type !== '$unknown' && v !== undefined);
    if (known.length === 0) return { M: {} };
    if (attribute.M !== undefined) return { M: awsImage(attribute.M) };
    if (attribute.L !== undefined) return { L: attribute.L.map(value) };
    if (attribute.B !== undefined) return { B: Buffer.from(attribute.B).toString('base64') };
    if (attribute.BS !== undefined) return { BS: attribute.BS.map((b) => Buffer.from(b).toString('base64')) };
    return Object.fromEntries(known);
  };
  return Object.fromEntries(Object.entries(image).map(([name, attribute]) => [name, value(attribute)])) as Image;
}

/**
 * Lambda's event filtering, for the patterns the manifest uses: a record passes when it matches any
 * pattern (none given: every record); a pattern matches when each of its names matches, an array
 * being the exact values admitted (a string, or any element of a list).
 */
function passesFilters(record: DynamoDBRecord, filters: readonly StreamFilterPattern[] | undefined): boolean {
  if (filters === undefined || filters.length === 0) return true;
  return filters.some((pattern) => matches(pattern as unknown as StreamFilterNode, record));
}

function matches(pattern: StreamFilterNode, value: unknown): boolean {
  return Object.entries(pattern).every(([name, expected]) => {
    const actual = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
    if (Array.isArray(expected)) {
      const candidates = Array.isArray(actual) ? actual : [actual];
      return candidates.some((candidate) => typeof candidate === 'string' && expected.includes(candidate));
    }
    return matches(expected as StreamFilterNode, actual);
  });
}

function readCheckpoints(file: string | undefined): Checkpoints {
  if (!file) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Checkpoints;
  } catch {
    return {};
  }
}

