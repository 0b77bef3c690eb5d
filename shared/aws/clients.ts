import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { config } from '../kernel/config';
import { embeddedTimeoutScale, SDK_ATTEMPTS } from '../kernel/retry';

/**
 * What every AWS SDK client of the platform is built with (DynamoDB, SQS, EventBridge, KMS,
 * Secrets Manager; the embedded platform's DynamoDB Local and stream clients too). One place, so
 * the retry split below is stated once (never two layers multiplied):
 *
 *  - **DynamoDB: the store retries, the SDK does not.** The DynamoDB client sends each request
 *    once (`DYNAMODB_SDK_ATTEMPTS`), and the store (./store.ts) retries under the one policy
 *    (shared/kernel/retry.ts): throttling of the request or of an item (a cancelled transaction, a
 *    batch's unprocessed part), no answer (timeouts, dropped connections, 5xx), and conflicts with
 *    another transaction, within the request's deadline. So one write is sent at most
 *    `POLICIES.dynamodb.attempts` times. A transaction sent again after no answer keeps its
 *    `ClientRequestToken`, so it is not applied twice. Standard mode, not adaptive: the adaptive
 *    client-side rate limiter makes a send wait before it goes, seconds after a run of throttles
 *    (30 throttled sends took 56 s on DynamoDB Local with every backoff of ours instant), a wait
 *    no deadline of ours sees; our full-jitter backoff spreads the retries instead.
 *  - **SQS, EventBridge, KMS, Secrets Manager: the SDK retries, we do not** (no loop of ours
 *    calls them): the adaptive strategy, `SDK_ATTEMPTS` attempts (shared/kernel/retry.ts).
 *  - **Every attempt is abandoned after `ATTEMPT_TIMEOUT_MS`** (`requestTimeout` with
 *    `throwOnRequestTimeout`: without the flag, @smithy/node-http-handler 4.x only logs a warning
 *    when the time passes and keeps waiting; an answer 14 s late still arrived, no error). The
 *    handler then destroys the socket and throws `TimeoutError` (code `ETIMEDOUT`), which
 *    `transientAwsFailure` names `lost`: the store sends the request again (a conditional single
 *    write recognising its own earlier attempt, ./store.ts), the other clients' SDK retry does.
 *    3 s on AWS: DynamoDB answers in milliseconds, so an attempt silent that long is hung (a dead
 *    connection), and a hung first attempt leaves the store two more inside a 10 s route (the
 *    store's retries stop at its 9 s deadline; the SDK-retried clients' 3 attempts, 9 s at
 *    worst, at the function's timeout only). On an emulator, reached by an explicit endpoint
 *    (DynamoDB Local, its streams) or inside LocalStack (its `AWS_ENDPOINT_URL`: DynamoDB Local
 *    again, behind its gateway), the attempt gets the function's
 *    own 10 s, times `EMBEDDED_TIMEOUT_SCALE` (12 in the test suite) as the deadline does: there
 *    a slow answer is a busy machine queueing work on DynamoDB Local's one thread per database,
 *    never a dead connection, and abandoning it would only add the same work again.
 *
 * Credentials come from the SDK's default provider chain (in Lambda, the execution role's in the
 * environment) unless given; endpoints from `AWS_ENDPOINT_URL_<SERVICE>`, then `AWS_ENDPOINT_URL`
 * (LocalStack), then the region's, as the SDK resolves them, unless given.
 */

/** Static credentials or a provider of them (every client takes the same kinds). */
export type SdkCredentials = NonNullable<DynamoDBClientConfig['credentials']>;

/** Attempts per request of the clients the SDK retries (all but DynamoDB's), the first included. */
export const SDK_MAX_ATTEMPTS = SDK_ATTEMPTS;

/** DynamoDB requests are sent once by the SDK: the store retries them (above). */
export const DYNAMODB_SDK_ATTEMPTS = 1;

/** An attempt's time on AWS (above). */
export const ATTEMPT_TIMEOUT_MS = 3_000;
/**
 * An attempt's time on an emulator, reached by an explicit endpoint (DynamoDB Local) or by the
 * `AWS_ENDPOINT_URL` LocalStack puts in its Lambdas' environment (DynamoDB Local again, behind its
 * gateway): a route's whole timeout (ROUTE_TIMEOUT_SECONDS), before the embedded scale.
 */
export const EMULATOR_ATTEMPT_TIMEOUT_MS = 10_000;
/** Connecting, within the attempt's time. */
export const CONNECTION_TIMEOUT_MS = 3_000;

/** The per-attempt timeout of a client (above): `EMBEDDED_TIMEOUT_SCALE` stretches both. */
export const attemptTimeoutMs = (endpoint: string | undefined): number =>
  // The configuration is read only without an explicit endpoint: the embedded platform builds its
  // clients (with DynamoDB Local's endpoint) before it sets the environment the configuration reads once.
  (endpoint || config.AWS_ENDPOINT_URL ? EMULATOR_ATTEMPT_TIMEOUT_MS : ATTEMPT_TIMEOUT_MS) * embeddedTimeoutScale();

export interface SdkClientOptions {
  region?: string;
  /** DynamoDB Local and tests; otherwise the SDK's endpoint resolution (environment, then the region's). */
  endpoint?: string;
  /** Default: the SDK's default provider chain. */
  credentials?: SdkCredentials;
  maxAttempts?: number;
  /** Default adaptive; DynamoDB's client says standard (above). */
  retryMode?: 'standard' | 'adaptive';
  /** An attempt's time, ms (tests); default `attemptTimeoutMs(endpoint)`. */
  requestTimeoutMs?: number;
}

/**
 * The constructor settings of one client. Keep-alive connections through the SDK's
 * NodeHttpHandler (a TLS handshake per call would double a call's latency), a connection
 * timeout, and a per-attempt timeout that throws (above).
 */
export function sdkClientConfig(options: SdkClientOptions = {}) {
  return {
    region: options.region ?? config.AWS_REGION,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    maxAttempts: options.maxAttempts ?? SDK_MAX_ATTEMPTS,
    retryMode: options.retryMode ?? 'adaptive',
    requestHandler: {
      connectionTimeout: CONNECTION_TIMEOUT_MS * embeddedTimeoutScale(),
      requestTimeout: options.requestTimeoutMs ?? attemptTimeoutMs(options.endpoint),
      throwOnRequestTimeout: true,
      httpAgent: { keepAlive: true, maxSockets: 50 },
      httpsAgent: { keepAlive: true, maxSockets: 50 },
    },
  } as const;
}
