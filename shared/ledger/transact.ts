import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { TransactItem } from '../aws/dynamodb';
import { AppError } from '../errors';

/**
 * One TransactWriteItems with the retries DynamoDB asks for: a transaction cancelled only because
 * another transaction touched the same item (`TransactionConflict`) is sent again with jittered
 * exponential backoff; a cancellation with a failed condition is handed to the caller, which knows
 * what each item's condition meant and maps it to a domain code.
 */


export interface ConditionFailure {
  /** Index of the item whose condition failed. */
  index: number;
  /** The item as it was (ALL_OLD), when the item asked for it. */
  item: Record<string, unknown> | undefined;
}

/** DynamoDB's own limit on one transaction. */
export const MAX_TRANSACT_ITEMS = 100;
const MAX_ATTEMPTS = 10;
const BASE_DELAY_MS = 10;
const MAX_DELAY_MS = 1_000;

export class ConditionsFailed extends Error {
  constructor(readonly failures: ConditionFailure[]) {
    super(`transaction conditions failed at items ${failures.map((f) => f.index).join(', ')}`);
  }
}

export async function transactWrite(
  client: DynamoDBDocumentClient,
  items: TransactItem[],
  options: { sleep?: (ms: number) => Promise<void> } = {},
): Promise<{ attempts: number }> {
  if (items.length > MAX_TRANSACT_ITEMS) {
    throw new AppError('invalid', `This operation needs ${items.length} writes; one transaction holds at most ${MAX_TRANSACT_ITEMS}.`);
  }
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.send(new TransactWriteCommand({ TransactItems: items }));
      return { attempts: attempt };
    } catch (error) {
      const reasons = cancellationReasons(error) ?? (isThrottling(error) ? [{ Code: 'ThrottlingError' }] : undefined);
      if (!reasons) throw error;
      const failures = reasons
        .map((reason, index) => ({ reason, index }))
        .filter(({ reason }) => reason.Code === 'ConditionalCheckFailed')
        .map(({ reason, index }) => ({ index, item: reason.Item ? unmarshall(reason.Item as never) : undefined }));
      if (failures.length > 0) throw new ConditionsFailed(failures);
      const retryable = reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded');
      if (!retryable || attempt >= MAX_ATTEMPTS) {
        throw new AppError('service_unavailable', 'The ledger is busy with conflicting writes; retry the request with the same Idempotency-Key.');
      }
      // Full jitter: concurrent writers to a hot account spread out instead of colliding again.
      await sleep(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));
    }
  }
}

/** Throttled writes were not applied, so sending them again is safe. */
const THROTTLING = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded']);
const isThrottling = (error: unknown): boolean => THROTTLING.has((error as { name?: string } | undefined)?.name ?? '');

function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if (error instanceof TransactionCanceledException) return error.CancellationReasons ?? [];
  // The document client rethrows the service exception; match by name as well for wrapped clients.
  if (error && typeof error === 'object' && (error as { name?: string }).name === 'TransactionCanceledException') {
    return (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
  }
  if (error && typeof error === 'object' && (error as { name?: string }).name === 'TransactionInProgressException') {
    return [{ Code: 'TransactionConflict' }];
  }
  return undefined;
}
