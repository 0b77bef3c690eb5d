import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { config } from '../kernel/config';

/**
 * What every AWS SDK client of the platform is built with (DynamoDB, SQS, EventBridge, KMS,
 * Secrets Manager; the embedded platform's DynamoDB Local and stream clients too). One place, so
 * the retry split below is stated once:
 *
 *  - **The SDK retries a request** that failed as a whole and changed nothing: throttling
 *    (ThrottlingException, ProvisionedThroughputExceededException, RequestLimitExceeded,
 *    TransactionInProgressException), 5xx, timeouts and dropped connections, clock skew. Adaptive
 *    mode: the standard strategy's backoff and retry quota, plus a client-side rate limiter that
 *    slows a container's sends while the service throttles it. `SDK_MAX_ATTEMPTS` attempts, the
 *    first included. A DynamoDB transaction keeps its `ClientRequestToken` across these retries
 *    (the SDK serializes a command once), so a retry after a lost answer is not applied twice.
 *  - **The store (./store.ts) retries an answer** the SDK takes as final: a transaction cancelled
 *    only for `TransactionConflict` or item-level throttling, a single write refused with
 *    `TransactionConflictException`, and the keys and items a batch leaves unprocessed. A
 *    throttling error that reaches the store has had the SDK's attempts already: it is answered
 *    503 `service_unavailable` at once, not tried again (no retries of retries).
 *
 * Credentials come from the SDK's default provider chain (in Lambda, the execution role's in the
 * environment) unless given; endpoints from `AWS_ENDPOINT_URL_<SERVICE>`, then `AWS_ENDPOINT_URL`
 * (LocalStack), then the region's, as the SDK resolves them, unless given.
 */

/** Static credentials or a provider of them (every client takes the same kinds). */
export type SdkCredentials = NonNullable<DynamoDBClientConfig['credentials']>;

/** Attempts per request, the first included (the SDK's standard default). */
export const SDK_MAX_ATTEMPTS = 3;

export interface SdkClientOptions {
  region?: string;
  /** DynamoDB Local and tests; otherwise the SDK's endpoint resolution (environment, then the region's). */
  endpoint?: string;
  /** Default: the SDK's default provider chain. */
  credentials?: SdkCredentials;
  maxAttempts?: number;
}

/**
 * The constructor settings of one client. Keep-alive connections through the SDK's
 * NodeHttpHandler (a TLS handshake per call would double a call's latency), a connection
 * timeout, and a per-attempt timeout well inside a function's 10 s.
 */
export function sdkClientConfig(options: SdkClientOptions = {}) {
  return {
    region: options.region ?? config.AWS_REGION,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    maxAttempts: options.maxAttempts ?? SDK_MAX_ATTEMPTS,
    retryMode: 'adaptive',
    requestHandler: {
      connectionTimeout: 3_000,
      requestTimeout: 10_000,
      httpAgent: { keepAlive: true, maxSockets: 50 },
      httpsAgent: { keepAlive: true, maxSockets: 50 },
    },
  } as const;
}
