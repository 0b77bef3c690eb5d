import { createHash, createHmac, randomUUID } from 'node:crypto';
import { config } from '../kernel/config';
import { httpSend } from '../http/outbound';

/**
 * The platform's one way to call AWS from a Lambda: the AWS JSON protocol (DynamoDB, KMS, Secrets
 * Manager, SQS, EventBridge all speak it) over a keep-alive HTTPS connection, signed with
 * Signature Version 4. It replaces the SDK clients in every function (docs/performance.md): the
 * SDK's generic machinery (middleware stacks, every protocol, the credential chain, endpoint
 * rules) was two thirds of each bundle and most of its cold import, and the platform uses five
 * operations of it. `test/unit/aws-json.test.ts` signs the same requests with the SDK's own
 * signer and compares; every DynamoDB call of the test suite goes through it.
 */

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Sync for the environment's; the operator scripts pass the SDK's default chain (async, memoized). */
export type CredentialsProvider = () => AwsCredentials | Promise<AwsCredentials>;

/** Lambda puts the execution role's credentials in the environment; so do the SDK's other hosts. */
export const environmentCredentials: CredentialsProvider = () => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
  return { accessKeyId, secretAccessKey, ...(process.env.AWS_SESSION_TOKEN ? { sessionToken: process.env.AWS_SESSION_TOKEN } : {}) };
};

// ---------------------------------------------------------------------------------------------
// Signature Version 4

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** Signing keys change once a day per region and service: derive each once, per credentials. */
const signingKeys = new Map<string, { secret: string; key: Buffer }>();

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  const id = `${date}/${region}/${service}`;
  const known = signingKeys.get(id);
  if (known && known.secret === secret) return known.key;
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  if (signingKeys.size > 32) signingKeys.clear();
  signingKeys.set(id, { secret, key });
  return key;
}

export interface SignableRequest {
  method: string;
  /** Host header value (host, or host:port when not the scheme's default). */
  host: string;
  /** The path, already URI-encoded (`/` for every JSON-protocol call). */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Signs a request (SigV4, header form): every header given is signed, with `host`, `x-amz-date`,
 * `x-amz-content-sha256` and, for temporary credentials, `x-amz-security-token`. Answers the
 * headers to send.
 */
export function signV4(request: SignableRequest, credentials: AwsCredentials, region: string, service: string, now: Date): Record<string, string> {
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(request.body);
  // The payload hash as a signed header too, as the SDK's signer sends it.
  const headers: Record<string, string> = { ...request.headers, host: request.host, 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  const names = Object.keys(headers)
    .map((name) => name.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const canonicalHeaders = names.map((name) => `${name}:${String(lower[name]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [request.method, request.path, '', canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, date, region, service)).update(stringToSign).digest('hex');
  return { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}` };
}

// ---------------------------------------------------------------------------------------------
// The JSON protocol

/** An error the service answered, shaped as the SDK's: `name` is the exception, the payload's other fields ride along. */
export class AwsServiceError extends Error {
  readonly $fault: 'client' | 'server';
  readonly $metadata: { httpStatusCode: number; requestId: string | undefined; attempts: number };
  [field: string]: unknown;

  constructor(name: string, message: string, status: number, requestId: string | undefined, attempts: number, payload: Record<string, unknown>) {
    super(message);
    Object.assign(this, payload);
    this.name = name;
    this.$fault = status >= 500 ? 'server' : 'client';
    this.$metadata = { httpStatusCode: status, requestId, attempts };
  }
}

/** Throttled or failed on the server side: nothing was applied, so sending again is safe. */
const RETRYABLE_ERRORS = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'KMSInternalException',
]);

/** What the client needs of a service: its signing name (`prefix`), endpoint host prefix, JSON version, endpoint env var suffix. */
interface ServiceDefinition {
  prefix: string;
  host: string;
  version: '1.0' | '1.1';
  envSuffix: string;
}

/** Each service the platform calls. */
export const AWS_SERVICES = {
  dynamodb: { prefix: 'dynamodb', host: 'dynamodb', version: '1.0', envSuffix: 'DYNAMODB' },
  // Streams sign as DynamoDB; the embedded platform's stream driver reads DynamoDB Local's with it.
  dynamodbstreams: { prefix: 'dynamodb', host: 'streams.dynamodb', version: '1.0', envSuffix: 'DYNAMODB_STREAMS' },
  kms: { prefix: 'kms', host: 'kms', version: '1.1', envSuffix: 'KMS' },
  secretsmanager: { prefix: 'secretsmanager', host: 'secretsmanager', version: '1.1', envSuffix: 'SECRETS_MANAGER' },
  sqs: { prefix: 'sqs', host: 'sqs', version: '1.0', envSuffix: 'SQS' },
  events: { prefix: 'events', host: 'events', version: '1.1', envSuffix: 'EVENTBRIDGE' },
} satisfies Record<string, ServiceDefinition>;
export type AwsService = keyof typeof AWS_SERVICES;

export interface AwsJsonClientOptions {
  service: AwsService;
  region: string;
  /** Default: AWS_ENDPOINT_URL_<SERVICE>, then AWS_ENDPOINT_URL, then https://<service>.<region>.amazonaws.com. */
  endpoint?: string;
  credentials?: CredentialsProvider;
  /** Attempts per call for throttling, 5xx and connection failures (1 = no retry). */
  maxAttempts?: number;
  /** Per attempt, from connecting to the last byte of the answer. */
  timeoutMs?: number;
  clock?: () => Date;
}

export class AwsJsonClient {
  private readonly url: URL;
  private readonly credentials: CredentialsProvider;
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly clock: () => Date;

  constructor(private readonly options: AwsJsonClientOptions) {
    const service = AWS_SERVICES[options.service];
    const endpoint = options.endpoint ?? process.env[`AWS_ENDPOINT_URL_${service.envSuffix}`] ?? process.env.AWS_ENDPOINT_URL ?? `https://${service.host}.${options.region}.amazonaws.com`;
    this.url = new URL(endpoint);
    this.credentials = options.credentials ?? environmentCredentials;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.clock = options.clock ?? (() => new Date());
  }

  /**
   * Calls `target` (e.g. `DynamoDB_20120810.GetItem`) with `input`; answers the parsed output or
   * throws an AwsServiceError (or the connection's error after the last attempt).
   */
  async call<T = Record<string, unknown>>(target: string, input: unknown): Promise<T> {
    const body = JSON.stringify(input);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return (await this.attempt(target, body, attempt)) as T;
      } catch (error) {
        const retryable = error instanceof AwsServiceError ? error.$fault === 'server' || RETRYABLE_ERRORS.has(error.name) : isConnectionError(error);
        if (!retryable || attempt >= this.maxAttempts) throw error;
        // Full jitter over a doubling ceiling, as the SDK's standard retry strategy does.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2_000, 50 * 2 ** attempt)));
      }
    }
  }

  private async attempt(target: string, body: string, attempt: number): Promise<unknown> {
    const service = AWS_SERVICES[this.options.service];
    const credentials = await this.credentials();
    const headers = signV4(
      {
        method: 'POST',
        host: this.url.host,
        path: this.url.pathname || '/',
        headers: { 'content-type': `application/x-amz-json-${service.version}`, 'x-amz-target': target },
        body,
      },
      credentials,
      this.options.region,
      service.prefix,
      this.clock(),
    );
    const response = await httpSend({ method: 'POST', url: this.url.href, headers, body, timeoutMs: this.timeoutMs });
    let payload: Record<string, unknown> = {};
    try {
      payload = response.text ? (JSON.parse(response.text) as Record<string, unknown>) : {};
    } catch {
      payload = { message: response.text.slice(0, 200) };
    }
    if (response.status >= 200 && response.status < 300) return payload;
    const requestId = (response.headers['x-amzn-requestid'] ?? response.headers['x-amz-request-id']) as string | undefined;
    throw toServiceError(payload, response.headers['x-amzn-errortype'] as string | undefined, response.status, requestId, attempt);
  }
}

/** `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` (or the header's `Name:uri`) → `ConditionalCheckFailedException`. */
function toServiceError(payload: Record<string, unknown>, headerType: string | undefined, status: number, requestId: string | undefined, attempts: number): AwsServiceError {
  const raw = String(payload.__type ?? headerType ?? (status >= 500 ? 'InternalFailure' : 'UnknownError'));
  const name = raw.split('#').pop()!.split(':')[0]!;
  const message = String(payload.message ?? payload.Message ?? name);
  const { __type: _type, message: _m, Message: _M, ...rest } = payload;
  return new AwsServiceError(name, message, status, requestId, attempts, rest);
}

const CONNECTION_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED', 'UND_ERR_SOCKET']);
const isConnectionError = (error: unknown): boolean => CONNECTION_ERRORS.has(String((error as { code?: string } | undefined)?.code ?? ''));

/** An idempotency token for one logical call (DynamoDB's ClientRequestToken): the same for its retries. */
export const idempotencyToken = (): string => randomUUID();

const containerClients = new Map<AwsService, AwsJsonClient>();

/** The container's client of `service`, in its region, created on first use (never at import: loading a handler needs no AWS). */
export function serviceClient(service: AwsService): AwsJsonClient {
  let client = containerClients.get(service);
  if (!client) containerClients.set(service, (client = new AwsJsonClient({ service, region: config.AWS_REGION })));
  return client;
}
