import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetPublicKeyCommand, KMSClient, SignCommand, type SignCommandInput } from '@aws-sdk/client-kms';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { jwtVerify } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DYNAMODB_SDK_ATTEMPTS, SDK_MAX_ATTEMPTS } from '../../shared/aws/clients';
import { eventBridgeTransport } from '../../shared/aws/bus';
import { sqsTransport } from '../../shared/aws/queue';
import type { BusEvent } from '../../shared/aws/transport';
import type { HttpSend } from '../../shared/http/outbound';
import { queueUrlEnv } from '../../shared/workers';

/**
 * The platform's AWS calls outside DynamoDB: KMS signs wallet tokens, Secrets Manager holds the
 * ledger client credentials, SQS takes queued work (webhook deliveries, sandbox confirmations) and
 * EventBridge the domain events. No local stand-in runs any of them, so their SDK clients are
 * mocked with aws-sdk-client-mock (the SDK's own ecosystem mock, which replaces `send` of every
 * instance of a client class: the containers' own clients included). The assertions are on the
 * commands we send and on what the code makes of the answers (a token that verifies with the
 * mocked key's public half). DynamoDB is never mocked: every DynamoDB test runs on DynamoDB Local.
 */

const kmsMock = mockClient(KMSClient);
const secretsMock = mockClient(SecretsManagerClient);
const sqsMock = mockClient(SQSClient);
const eventsMock = mockClient(EventBridgeClient);

afterAll(() => {
  for (const mock of [kmsMock, secretsMock, sqsMock, eventsMock]) mock.restore();
});

/** A refusal as the SDK throws it: the exception's name, its fault and metadata. */
const sdkRefusal = (name: string, message: string) => Object.assign(new Error(message), { name, $fault: 'client', $metadata: { httpStatusCode: 400 } });

const KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const PREVIOUS_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/0000abcd-12ab-34cd-56ef-1234567890ab';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  for (const mock of [kmsMock, secretsMock, sqsMock, eventsMock]) mock.reset();
});

describe('the SDK clients', () => {
  it('are built with the platform settings: the region configured, the SDK\'s adaptive retries, and one standard send per DynamoDB request (the store retries)', async () => {
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.resetModules();
    const built = [
      (await import('../../shared/aws/kms-client')).newKmsClient(),
      (await import('../../shared/aws/secrets-client')).newSecretsClient(),
      (await import('../../shared/aws/queue-client')).newSqsClient(),
      (await import('../../shared/aws/bus-client')).newEventBridgeClient(),
      (await import('../../shared/aws/dynamodb')).dynamoDbClient(),
    ];
    // A resolved setting is a value or a provider of it.
    const value = async (setting: unknown) => (typeof setting === 'function' ? await (setting as () => Promise<unknown>)() : setting);
    for (const [index, client] of built.entries()) {
      expect(await value(client.config.region)).toBe('eu-west-1');
      // DynamoDB's requests are retried by the store alone (shared/kernel/retry.ts): its client sends each once.
      expect(await value(client.config.maxAttempts)).toBe(index === built.length - 1 ? DYNAMODB_SDK_ATTEMPTS : SDK_MAX_ATTEMPTS);
      expect(await value(client.config.retryMode)).toBe(index === built.length - 1 ? 'standard' : 'adaptive');
      client.destroy();
    }
  });
});

describe("an SDK attempt's time", () => {
  /** The settings a client is built with, from a fresh module graph (the configuration is read once per process). */
  const settingsWith = async (env: Record<string, string | undefined>, options: { endpoint?: string } = {}) => {
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    vi.resetModules();
    const clients = await import('../../shared/aws/clients');
    const { embeddedTimeoutScale } = await import('../../shared/kernel/retry');
    return { handler: clients.sdkClientConfig(options).requestHandler, clients, scale: embeddedTimeoutScale() };
  };

  it('is abandoned (it throws) after 3 s on AWS, and after a route\'s 10 s on an emulator: DynamoDB Local by its endpoint, LocalStack by the AWS_ENDPOINT_URL it gives its Lambdas', async () => {
    const aws = await settingsWith({ AWS_ENDPOINT_URL: undefined });
    expect(aws.handler.throwOnRequestTimeout).toBe(true);
    expect(aws.handler.requestTimeout).toBe(aws.clients.ATTEMPT_TIMEOUT_MS * aws.scale);
    expect(aws.clients.ATTEMPT_TIMEOUT_MS).toBe(3_000);

    const local = await settingsWith({ AWS_ENDPOINT_URL: undefined }, { endpoint: 'http://127.0.0.1:8000' });
    expect(local.handler.requestTimeout).toBe(local.clients.EMULATOR_ATTEMPT_TIMEOUT_MS * local.scale);

    // Inside LocalStack the SDK finds its endpoint in the environment; no explicit endpoint is given.
    const localstack = await settingsWith({ AWS_ENDPOINT_URL: 'http://localhost.localstack.cloud:4566' });
    expect(localstack.handler.requestTimeout).toBe(localstack.clients.EMULATOR_ATTEMPT_TIMEOUT_MS * localstack.scale);
    expect(localstack.clients.EMULATOR_ATTEMPT_TIMEOUT_MS).toBe(10_000);
  });
});

describe('the KMS token signer', () => {
  let keys: Map<string, { privateKey: KeyObject; publicKey: KeyObject }>;

  beforeAll(() => {
    keys = new Map([KEY_ARN, PREVIOUS_ARN].map((arn) => [arn, generateKeyPairSync('rsa', { modulusLength: 2048 })]));
  });

  /** What KMS answers: RSASSA_PKCS1_V1_5_SHA_256 over the raw message; public keys as DER SPKI. */
  function answerAsKms(refuse?: () => boolean) {
    kmsMock.on(SignCommand).callsFake((input: SignCommandInput) => {
      const pair = keys.get(String(input.KeyId));
      if (!pair || refuse?.()) throw sdkRefusal('AccessDeniedException', 'not allowed');
      return { KeyId: input.KeyId, Signature: new Uint8Array(createSign('RSA-SHA256').update(input.Message!).sign(pair.privateKey)), SigningAlgorithm: input.SigningAlgorithm };
    });
    kmsMock.on(GetPublicKeyCommand).callsFake((input: { KeyId?: string }) => {
      const pair = keys.get(String(input.KeyId));
      if (!pair || refuse?.()) throw sdkRefusal('AccessDeniedException', 'not allowed');
      const der = pair.publicKey.export({ format: 'der', type: 'spki' });
      return { KeyId: input.KeyId, PublicKey: new Uint8Array(der), KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['RSASSA_PKCS1_V1_5_SHA_256'] };
    });
  }

  /** The signer as a wallet function builds it from its configuration: the container's KMS client. */
  async function signerFromConfig() {
    vi.stubEnv('WALLET_SIGNING_KEYS', undefined);
    vi.stubEnv('WALLET_SIGNING_KMS_KEY_ID', KEY_ARN);
    vi.stubEnv('WALLET_SIGNING_KMS_PREVIOUS_KEY_ID', PREVIOUS_ARN);
    vi.stubEnv('WALLET_ISSUER', 'urn:wallet:test');
    vi.resetModules();
    const tokens = await import('../../shared/wallet/auth/tokens');
    return { tokens, signer: await tokens.loadTokenSigner() };
  }

  it('sends Sign with the configured key, RAW message type and RSASSA_PKCS1_V1_5_SHA_256, and the token verifies with the public key', async () => {
    answerAsKms();
    const { tokens, signer } = await signerFromConfig();
    const { token } = await tokens.mintWalletToken(signer, { use: 'user', subject: 'user-1', scopes: ['balances:read'], ttlSeconds: 300, claims: { tenant_id: 't-1' } });

    const calls = kmsMock.commandCalls(SignCommand);
    expect(calls).toHaveLength(1);
    const signingInput = token.split('.').slice(0, 2).join('.');
    const { Message, ...rest } = calls[0]!.args[0].input;
    expect(rest).toEqual({ KeyId: KEY_ARN, MessageType: 'RAW', SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' });
    expect(Buffer.from(Message!).toString()).toBe(signingInput);

    // Independently of our verifier: the mocked key's public half and jose.
    const { payload, protectedHeader } = await jwtVerify(token, keys.get(KEY_ARN)!.publicKey, { issuer: 'urn:wallet:test', audience: 'wallet', algorithms: ['RS256'] });
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: tokens.kmsKid(KEY_ARN), typ: 'JWT' });
    expect(payload).toMatchObject({ sub: 'user-1', tenant_id: 't-1', token_use: 'user' });
  });

  it('publishes both keys from GetPublicKey, and verifies its tokens with them', async () => {
    answerAsKms();
    const { tokens, signer } = await signerFromConfig();
    const { keys: published } = await signer.jwks();

    expect(kmsMock.commandCalls(GetPublicKeyCommand).map((call) => call.args[0].input)).toEqual([{ KeyId: KEY_ARN }, { KeyId: PREVIOUS_ARN }]);
    const expected = (arn: string) => {
      const jwk = keys.get(arn)!.publicKey.export({ format: 'jwk' });
      return { kty: 'RSA', n: jwk.n, e: jwk.e, kid: tokens.kmsKid(arn), alg: 'RS256', use: 'sig' };
    };
    expect(published).toEqual([expected(KEY_ARN), expected(PREVIOUS_ARN)]);
    await signer.jwks();
    expect(kmsMock.commandCalls(GetPublicKeyCommand)).toHaveLength(2); // once per container

    const { token } = await tokens.mintWalletToken(signer, { use: 'staff', subject: 'staff-1', scopes: [], ttlSeconds: 300, claims: { role: 'platform' } });
    await expect(tokens.verifyWalletToken(token, 'staff', { signer })).resolves.toMatchObject({ sub: 'staff-1', role: 'platform' });
  });

  it('refuses a key of another kind at the first read', async () => {
    kmsMock.on(GetPublicKeyCommand).resolves({ KeyId: KEY_ARN, PublicKey: new Uint8Array([1, 2, 3]), KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    const { createKmsSigningPort } = await import('../../shared/aws/kms');
    await expect(createKmsSigningPort().publicKey(KEY_ARN)).rejects.toThrow(/ECC_NIST_P256\/SIGN_VERIFY; wallet tokens need an RSA SIGN_VERIFY key/);
  });

  it('answers service_unavailable when KMS refuses, and asks again on the next call', async () => {
    let refusals = 1;
    answerAsKms(() => refusals-- > 0);
    const { signer } = await signerFromConfig();

    await expect(signer.jwks()).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(signer.jwks()).resolves.toMatchObject({ keys: [expect.anything(), expect.anything()] });
    expect(kmsMock.commandCalls(GetPublicKeyCommand).length).toBeGreaterThanOrEqual(3);
  });

  it('builds the KMS signer from the configuration alone, calling nothing until a token is signed or verified', async () => {
    vi.stubEnv('WALLET_SIGNING_KEYS', undefined);
    vi.stubEnv('WALLET_SIGNING_KMS_KEY_ID', KEY_ARN);
    vi.resetModules();
    const tokens = await import('../../shared/wallet/auth/tokens');
    await expect(tokens.loadTokenSigner()).resolves.toMatchObject({ kid: tokens.kmsKid(KEY_ARN) });
    expect(kmsMock.calls()).toHaveLength(0);
  });
});

describe('the ledger credentials', () => {
  const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:WalletLedgerCredentials-AbCdEf';

  async function runtimeWithSecret() {
    vi.stubEnv('LEDGER_CREDENTIALS_SECRET_ARN', SECRET_ARN);
    vi.stubEnv('LEDGER_CLIENT_ID', 'local-id-never-used');
    vi.stubEnv('LEDGER_CLIENT_SECRET', 'local-secret-never-used');
    vi.stubEnv('LEDGER_API_URL', 'https://ledger.example/dev');
    vi.stubEnv('LEDGER_TOKEN_URL', 'https://ledger.example/dev/oauth2/token');
    vi.stubEnv('LEDGER_SCOPES', 'ledger/postings');
    vi.resetModules();
    return {
      runtime: await import('../../shared/ledger-client/loader'),
      secrets: await import('../../shared/aws/secrets'),
    };
  }

  it('reads {client_id, client_secret} with GetSecretValue(SecretId = LEDGER_CREDENTIALS_SECRET_ARN)', async () => {
    secretsMock.on(GetSecretValueCommand).resolves({ ARN: SECRET_ARN, Name: 'WalletLedgerCredentials', SecretString: JSON.stringify({ client_id: 'wallet-client', client_secret: 's3cret' }), VersionId: 'v1' });
    const { runtime } = await runtimeWithSecret();

    // The default reader: the container's Secrets Manager client.
    await expect(runtime.loadLedgerCredentials()).resolves.toEqual({ clientId: 'wallet-client', clientSecret: 's3cret' });
    expect(secretsMock.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input)).toEqual([{ SecretId: SECRET_ARN }]);
  });

  it('refuses a binary or non-JSON secret as a deployment error', async () => {
    const { secrets: sm } = await runtimeWithSecret();
    secretsMock.on(GetSecretValueCommand).resolvesOnce({ SecretBinary: new Uint8Array([1]) }).resolvesOnce({ SecretString: 'not json' });
    await expect(sm.readJsonSecret(SECRET_ARN)).rejects.toThrow(/has no string value/);
    await expect(sm.readJsonSecret(SECRET_ARN)).rejects.toThrow(/is not JSON/);
  });

  it('refuses a secret of another shape as a deployment error, and a failed read as service_unavailable', async () => {
    const { runtime } = await runtimeWithSecret();
    await expect(runtime.loadLedgerCredentials(async () => ({ client_id: 'x' }))).rejects.toThrow(/client_id, client_secret/);
    await expect(
      runtime.loadLedgerCredentials(async () => {
        throw new Error('throttled');
      }),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('reads the secret once per container, again after a failure, and again when the token endpoint refuses it', async () => {
    const { runtime } = await runtimeWithSecret();
    let reads = 0;
    let fail = true;
    let now = Date.parse('2030-01-01T00:00:00Z');
    const readSecret = async () => {
      reads += 1;
      if (fail) throw new Error('unreachable');
      return { client_id: 'wallet-client', client_secret: reads < 3 ? 'old' : 'new' };
    };
    const basics: string[] = [];
    const sendStub: HttpSend = async ({ url, headers }) => {
      if (url.endsWith('/oauth2/token')) {
        const basic = Buffer.from(String(headers.authorization).slice(6), 'base64').toString();
        basics.push(basic);
        return basic.endsWith(':new')
          ? { status: 200, headers: {}, text: JSON.stringify({ access_token: 'at', expires_in: 3600, token_type: 'Bearer' }) }
          : { status: 400, headers: {}, text: JSON.stringify({ error: 'invalid_client' }) };
      }
      return { status: 200, headers: {}, text: JSON.stringify({ ledger_id: 'l', rows: [], commodities: [], balanced: true }) };
    };
    const ledger = new runtime.DeferredLedger(runtime.ledgerClientLoader({ readSecret, send: sendStub, clock: { now: () => new Date(now) } }));

    await expect(ledger.rollup('l')).rejects.toMatchObject({ code: 'service_unavailable' }); // the read failed
    fail = false;
    await expect(ledger.rollup('l')).rejects.toMatchObject({ code: 'service_unavailable' }); // read 2: the old secret, refused
    expect(reads).toBe(2);
    await expect(ledger.rollup('l')).rejects.toMatchObject({ code: 'service_unavailable' }); // refused again within the minute: no re-read
    expect(reads).toBe(2);
    now += 61_000;
    await expect(ledger.rollup('l')).rejects.toMatchObject({ code: 'service_unavailable' }); // refused after a minute: forget the client
    await expect(ledger.rollup('l')).resolves.toMatchObject({ balanced: true }); // read 3: the rotated secret
    await expect(ledger.rollup('l')).resolves.toMatchObject({ balanced: true });
    expect(reads).toBe(3);
    expect(basics.at(-1)).toBe('wallet-client:new');
  });

  it('takes LEDGER_CLIENT_ID / LEDGER_CLIENT_SECRET locally, without Secrets Manager', async () => {
    vi.stubEnv('LEDGER_CREDENTIALS_SECRET_ARN', undefined);
    vi.stubEnv('LEDGER_CLIENT_ID', 'local-id');
    vi.stubEnv('LEDGER_CLIENT_SECRET', 'local-secret');
    vi.resetModules();
    const runtime = await import('../../shared/ledger-client/loader');
    const read = vi.fn();
    await expect(runtime.loadLedgerCredentials(read)).resolves.toEqual({ clientId: 'local-id', clientSecret: 'local-secret' });
    expect(read).not.toHaveBeenCalled();
  });
});

describe('the queue transport (SQS)', () => {
  it('sends SendMessage to the queue URL its stack set, with the delay asked for', async () => {
    vi.stubEnv(queueUrlEnv('webhookDeliveries'), 'https://sqs.eu-west-1.amazonaws.com/111122223333/deliveries');
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const transport = sqsTransport();

    await transport.send('webhookDeliveries', '{"delivery":"d-1"}', { delaySeconds: 120 });
    await transport.send('webhookDeliveries', '{"delivery":"d-2"}');

    expect(sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/111122223333/deliveries', MessageBody: '{"delivery":"d-1"}', DelaySeconds: 120 },
      { QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/111122223333/deliveries', MessageBody: '{"delivery":"d-2"}' },
    ]);
  });

  it('refuses a queue its function was not given, without calling SQS', async () => {
    vi.stubEnv(queueUrlEnv('webhookDeliveries'), undefined);
    await expect(sqsTransport().send('webhookDeliveries', '{}')).rejects.toThrow(/QUEUE_URL_WEBHOOK_DELIVERIES is not set/);
    expect(sqsMock.calls()).toHaveLength(0);
  });

  it('passes an SQS refusal to the caller as the SDK threw it', async () => {
    vi.stubEnv(queueUrlEnv('webhookDeliveries'), 'https://sqs.eu-west-1.amazonaws.com/111122223333/deliveries');
    sqsMock.on(SendMessageCommand).rejects(sdkRefusal('QueueDoesNotExist', 'The specified queue does not exist.'));
    await expect(sqsTransport().send('webhookDeliveries', '{}')).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });
});

describe('the event bus transport (EventBridge)', () => {
  const busEvents = (n: number): BusEvent[] => Array.from({ length: n }, (_, i) => ({ source: 'wallet', detailType: 'transfer.completed', detail: JSON.stringify({ n: i }) }));

  it('sends PutEvents on EVENT_BUS_NAME, ten entries a call, each with its source, type and detail', async () => {
    vi.stubEnv('EVENT_BUS_NAME', 'wallet-events-dev');
    eventsMock.on(PutEventsCommand).callsFake((input: { Entries?: unknown[] }) => ({ FailedEntryCount: 0, Entries: (input.Entries ?? []).map((_, i) => ({ EventId: `e-${i}` })) }));

    await eventBridgeTransport().publish(busEvents(23));

    const sent = eventsMock.commandCalls(PutEventsCommand).map((call) => call.args[0].input.Entries ?? []);
    expect(sent.map((entries) => entries.length)).toEqual([10, 10, 3]);
    expect(sent[0]![0]).toEqual({ EventBusName: 'wallet-events-dev', Source: 'wallet', DetailType: 'transfer.completed', Detail: '{"n":0}' });
    expect(sent.flat().map((entry) => JSON.parse(entry.Detail!).n)).toEqual(Array.from({ length: 23 }, (_, i) => i));
  });

  it('throws, naming the codes, when PutEvents answers failed entries (the relay retries its batch)', async () => {
    vi.stubEnv('EVENT_BUS_NAME', 'wallet-events-dev');
    eventsMock.on(PutEventsCommand).resolves({ FailedEntryCount: 2, Entries: [{ ErrorCode: 'ThrottlingException' }, { EventId: 'e-1' }, { ErrorCode: 'ThrottlingException' }] });

    await expect(eventBridgeTransport().publish(busEvents(3))).rejects.toThrow('PutEvents failed for 2 of 3 entries: ThrottlingException');
  });

  it('refuses to publish without EVENT_BUS_NAME, without calling EventBridge', async () => {
    vi.stubEnv('EVENT_BUS_NAME', undefined);
    await expect(eventBridgeTransport().publish(busEvents(1))).rejects.toThrow(/EVENT_BUS_NAME is not set/);
    expect(eventsMock.calls()).toHaveLength(0);
  });
});

describe('retryingOnce', () => {
  it('keeps a success and forgets a failure', async () => {
    const { retryingOnce } = await import('../../shared/kernel/lazy');
    let calls = 0;
    const load = retryingOnce(async () => {
      calls += 1;
      if (calls === 1) throw new Error('first');
      return calls;
    });
    await expect(load()).rejects.toThrow('first');
    await expect(load()).resolves.toBe(2);
    await expect(load()).resolves.toBe(2);
    expect(calls).toBe(2);
  });
});
