import { ThrottlingException, TransactionCanceledException, TransactionConflictException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, documentClientOf, dynamoDbClient, localDatabaseCredentials, type DocumentClient } from '../../shared/aws/dynamodb';
import { LOCAL_REGION } from '../../local/dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getItem, getItems, putItem, putItems, transact, TRANSACT_ATTEMPTS } from '../../shared/aws/store';
import type { Principal } from '../../shared/http/principal';
import { systemClock } from '../../shared/kernel/clock';
import { AppError, problemBody } from '../../shared/kernel/errors';
import { withDeadline } from '../../shared/kernel/retry';
import { uuidv7 } from '../../shared/kernel/ids';
import { createConsumerStore } from '../../shared/ledger/consumers';
import { createGrant, revokeGrant } from '../../shared/wallet/console/grants';
import type { WalletDeps } from '../../shared/wallet/deps';
import { walletKeys } from '../../shared/wallet/keys';
import { resolvePayment } from '../../shared/wallet/payments/capture';
import { createMerchant } from '../../shared/wallet/merchants/merchants';
import { keepAnswer } from '../../shared/wallet/saga/kept-answer';
import { createPayment } from '../../shared/wallet/payments/payments';
import { createStaff } from '../../shared/wallet/auth/staff';
import { createTransfer } from '../../shared/wallet/transfers/transfers';
import { dynamoDbAnswer } from '../support/dynamodb-answers';
import { ledgerFixture } from '../support/ledger';
import { tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { storedEvents } from '../support/events';
import { apiKeyPrincipals } from '../support/services';

/**
 * The one store's retry policy, seen from each kind of caller: DynamoDB Local serializes
 * transactions and never cancels one for a conflict or throttles it, as the real service does
 * under contention, so a wrapper makes the next TransactWriteItems fail that way before it is sent.
 * Each caller must retry, succeed, and write everything exactly once. The wrapper sits above the
 * SDK client: a cancellation (for a conflict, or for throttling of one of its items) and a single
 * write refused for a conflict. The store retries every DynamoDB request and the SDK client sends
 * each once (shared/aws/clients.ts): the later tests hold that split, with throttling, lost
 * answers and conflicts injected below the SDK's retry step, counting the requests sent.
 */

type Failure = 'conflict' | 'throttle';

const metadata = { httpStatusCode: 400, attempts: 1 };

/**
 * A client whose next `failures` writes fail as DynamoDB would, without being sent: by default
 * TransactWriteItems only (cancelled for `TransactionConflict`, or for `ThrottlingError`: an item's
 * partition throttled); `anyWrite` also single-item Puts and Updates, which only conflict (the
 * TransactionConflictException an item held by another transaction answers).
 */
function flaky(client: DocumentClient) {
  const pending: Failure[] = [];
  let anyWrite = false;
  let sent = 0;
  const wrapped: DocumentClient = {
    send: async (command) => {
      const single = command instanceof PutCommand || command instanceof UpdateCommand;
      if (command instanceof TransactWriteCommand || (anyWrite && single)) {
        const failure = pending.shift();
        if (failure && single) {
          throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: metadata });
        }
        if (failure) {
          const items = (command as TransactWriteCommand).input.TransactItems ?? [];
          const code = failure === 'conflict' ? 'TransactionConflict' : 'ThrottlingError';
          throw new TransactionCanceledException({
            message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${code}, None]`,
            $metadata: metadata,
            CancellationReasons: items.map((_, i) => ({ Code: i === 0 ? code : 'None' })),
          });
        }
        sent += 1;
      }
      return client.send(command);
    },
  };
  return {
    client: wrapped,
    /** The next TransactWriteItems fail this way, in this order. */
    fail: (...failures: Failure[]) => {
      anyWrite = false;
      pending.push(...failures);
    },
    /** The next writes of any kind fail this way, in this order. */
    failAnyWrite: (...failures: Failure[]) => {
      anyWrite = true;
      pending.push(...failures);
    },
    remaining: () => pending.length,
    sent: () => sent,
  };
}

const retried: Failure[][] = [['conflict'], ['throttle'], ['conflict', 'throttle', 'conflict']];

/**
 * A client that loses the answer of the first attempt of every single write (Put, Update): it is
 * sent and applied (or refused by its condition), then the client throws as the SDK does after
 * its request timeout, so the store sends it again (shared/aws/store.ts recognises its own write).
 */
function losingFirstAnswers(client: DocumentClient) {
  const seen = new Set<string>();
  let lost = 0;
  const wrapped: DocumentClient = {
    send: async (command) => {
      if (!(command instanceof PutCommand || command instanceof UpdateCommand)) return client.send(command);
      const input = command.input as { Key?: unknown; Item?: { pk?: unknown; sk?: unknown }; UpdateExpression?: string };
      const write = JSON.stringify([command.constructor.name, input.Key ?? [input.Item?.pk, input.Item?.sk], input.UpdateExpression ?? null]);
      if (seen.has(write)) return client.send(command);
      seen.add(write);
      lost += 1;
      await client.send(command).catch(() => undefined);
      throw Object.assign(new Error('a request has exceeded the configured requestTimeout'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
    },
  };
  return { client: wrapped, lost: () => lost };
}

describe('the store', () => {
  let f: Awaited<ReturnType<typeof ledgerFixture>>;
  beforeAll(async () => {
    f = await ledgerFixture();
  });
  
  it('gives up after its bounded attempts with 503 service_unavailable, having written nothing', async () => {
    const wrapper = flaky(f.client);
    wrapper.fail(...Array<Failure>(TRANSACT_ATTEMPTS).fill('conflict'));
    const key = { pk: `STORE_TEST#${uuidv7()}`, sk: 'ITEM' };

    const error = await transact({ client: wrapper.client, sleep: async () => undefined }, [{ Put: { TableName: f.table, Item: { ...key, n: 1 } } }]).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(await getItem({ client: f.client, table: f.table }, key)).toBeUndefined();
  });

  it('does not retry a failed condition: the condition is the answer', async () => {
    const wrapper = flaky(f.client);
    const key = { pk: `STORE_TEST#${uuidv7()}`, sk: 'ITEM' };
    const put = { Put: { TableName: f.table, Item: { ...key, n: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } };
    await transact({ client: wrapper.client }, [put]);

    await expect(transact({ client: wrapper.client }, [put])).rejects.toMatchObject({ name: 'ConditionsFailed', indexes: [0] });
    expect(wrapper.sent()).toBe(2);
  });

  it('reads any number of keys, 100 per BatchGetItem, asking again for those DynamoDB left unprocessed, in the order asked', async () => {
    const prefix = `STORE_TEST#${uuidv7()}`;
    const keys = Array.from({ length: 250 }, (_, n) => ({ pk: `${prefix}#${n}`, sk: 'ITEM' }));
    await Promise.all(keys.filter((_, n) => n % 3 !== 0).map((key, n) => putItem({ client: f.client, table: f.table }, { ...key, n })));
    const asked: number[] = [];
    let leftOnce = false;
    const client: DocumentClient = {
      send: async (command) => {
        if (!(command instanceof BatchGetCommand)) return f.client.send(command);
        const requested = command.input.RequestItems![f.table]!.Keys!;
        asked.push(requested.length);
        if (leftOnce) return f.client.send(command);
        // The first answer leaves its last ten keys unprocessed, as a throttled table would.
        leftOnce = true;
        const answered = await f.client.send(new BatchGetCommand({ RequestItems: { [f.table]: { ...command.input.RequestItems![f.table]!, Keys: requested.slice(0, -10) } } }));
        return { ...answered, UnprocessedKeys: { [f.table]: { Keys: requested.slice(-10) } } } as never;
      },
    };

    const items = await getItems({ client, table: f.table, sleep: async () => undefined }, keys);

    expect(items.map((item) => (item === undefined ? undefined : item.pk))).toEqual(keys.map((key, n) => (n % 3 === 0 ? undefined : key.pk)));
    expect(asked).toEqual([100, 100, 60]);
  });

  it('puts any number of items, 25 per BatchWriteItem, sending again those DynamoDB left unprocessed, then answers busy', async () => {
    const prefix = `STORE_TEST#${uuidv7()}`;
    const items = Array.from({ length: 60 }, (_, n) => ({ pk: `${prefix}#${n}`, sk: 'ITEM', n }));
    const sent: number[] = [];
    let leave = 1;
    const client: DocumentClient = {
      send: async (command) => {
        if (!(command instanceof BatchWriteCommand)) return f.client.send(command);
        const writes = command.input.RequestItems![f.table]!;
        sent.push(writes.length);
        if (leave === 0) return f.client.send(command);
        // This answer leaves its last five items unprocessed, as a throttled table would.
        leave -= 1;
        const processed = writes.slice(0, -5);
        if (processed.length > 0) await f.client.send(new BatchWriteCommand({ RequestItems: { [f.table]: processed } }));
        return { UnprocessedItems: { [f.table]: writes.slice(-5) } } as never;
      },
    };

    await putItems({ client, table: f.table, sleep: async () => undefined }, items);

    expect(sent).toEqual([25, 25, 15]);
    expect((await getItems({ client: f.client, table: f.table }, items.map(({ pk, sk }) => ({ pk, sk })))).map((item) => item?.n)).toEqual(items.map((item) => item.n));

    // Never processed: the one retry policy gives up with 503, as for a transaction.
    leave = Number.POSITIVE_INFINITY;
    const refused = await putItems({ client, table: f.table, sleep: async () => undefined }, items.slice(0, 10)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'service_unavailable' });
  });
});

/** What DynamoDB answers a request refused as a whole (throttled), or a transaction cancelled for a conflict. */
const REFUSALS = {
  throttle: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' },
  conflict: {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
    CancellationReasons: [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
  },
};

/**
 * DynamoDB answering the next requests with these refusals (HTTP 400), then as usual: the answers
 * are made below the SDK's retry and deserialization steps, so the SDK client reads and retries
 * them as it would the real service's.
 */
function refusedBelowTheSdk(client: DynamoDBClient, refusals: readonly (keyof typeof REFUSALS)[]) {
  const left = [...refusals];
  let requests = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      requests += 1;
      const refusal = left.length > 0 ? left.shift()! : undefined;
      if (!refusal) return next(args);
      return dynamoDbAnswer(400, REFUSALS[refusal]);
    },
    { step: 'deserialize', priority: 'low', name: 'refusedBelowTheSdk' },
  );
  return { requests: () => requests };
}

describe('who retries what (shared/aws/clients.ts): the store, each request sent at most TRANSACT_ATTEMPTS times', () => {
  let f: Awaited<ReturnType<typeof ledgerFixture>>;
  beforeAll(async () => {
    f = await ledgerFixture();
  });
  const sdkClient = () => dynamoDbClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: localDatabaseCredentials(f.table) });

  it('retries a request DynamoDB throttled as a whole in the store, the SDK sending it once each time, and the transaction is written once', async () => {
    const client = sdkClient();
    const throttled = refusedBelowTheSdk(client, ['throttle', 'throttle']);
    const key = { pk: `STORE_TEST#${uuidv7()}`, sk: 'ITEM' };

    const { attempts } = await transact({ client: documentClientOf(client), sleep: async () => undefined }, [{ Update: { TableName: f.table, Key: key, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } }]);

    expect(attempts).toBe(3);
    expect(throttled.requests()).toBe(3); // no retries of the SDK's inside the store's
    expect(await getItem({ client: f.client, table: f.table }, key)).toMatchObject({ n: 1 });
  });

  it('sends a write throttled without end at most TRANSACT_ATTEMPTS times, then answers 503 service_unavailable, retryable', async () => {
    const client = sdkClient();
    const throttled = refusedBelowTheSdk(client, Array<'throttle'>(4 * TRANSACT_ATTEMPTS).fill('throttle'));
    const key = { pk: `STORE_TEST#${uuidv7()}`, sk: 'ITEM' };

    const transaction = await transact({ client: documentClientOf(client), sleep: async () => undefined }, [{ Put: { TableName: f.table, Item: { ...key, n: 1 } } }]).catch((e: unknown) => e);
    expect(transaction).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(problemBody(transaction, 'r').retryable).toBe(true);
    expect(throttled.requests()).toBe(TRANSACT_ATTEMPTS);

    const single = await putItem({ client: documentClientOf(client), table: f.table, sleep: async () => undefined }, { ...key, n: 2 }).catch((e: unknown) => e);
    expect(single).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(throttled.requests()).toBe(2 * TRANSACT_ATTEMPTS);

    const read = await getItem({ client: documentClientOf(client), table: f.table, sleep: async () => undefined }, key).catch((e: unknown) => e);
    expect(read).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(throttled.requests()).toBe(3 * TRANSACT_ATTEMPTS);
    expect(await getItem({ client: f.client, table: f.table }, key)).toBeUndefined();
  });

  it('stops at the request\'s deadline before its attempts run out, with 503 service_unavailable', async () => {
    const client = sdkClient();
    const throttled = refusedBelowTheSdk(client, Array<'throttle'>(TRANSACT_ATTEMPTS).fill('throttle'));
    const key = { pk: `STORE_TEST#${uuidv7()}`, sk: 'ITEM' };
    // A clock of the test's: each backoff moves it by what was slept, and the deadline is 1 s away on it.
    let now = 0;
    const timing = { sleep: async (ms: number) => void (now += ms), retryTiming: { now: () => now, random: () => 1 } };

    const error = await withDeadline(1_000, () => transact({ client: documentClientOf(client), ...timing }, [{ Put: { TableName: f.table, Item: { ...key, n: 1 } } }])).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
    // Throttled: backoffs from the overloaded base, at their ceiling (200, 400 ms), bring it to 600; the next (800) would pass the deadline: three sends.
    expect(throttled.requests()).toBe(3);
    expect(now).toBe(600);
    expect(await getItem({ client: f.client, table: f.table }, key)).toBeUndefined();
  });

  it('answers a request that never got an answer after the store\'s attempts (a timeout, a dropped connection) with 503, not 500', async () => {
    const client = sdkClient();
    let requests = 0;
    client.middlewareStack.add(
      () => async () => {
        requests += 1;
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET' });
      },
      { step: 'deserialize', priority: 'low', name: 'neverAnswered' },
    );
    const key = { pk: `STORE_TEST#${uuidv7()}`, sk: 'ITEM' };
    const lost = await putItem({ client: documentClientOf(client), table: f.table, sleep: async () => undefined }, { ...key, n: 1 }).catch((e: unknown) => e);
    expect(lost).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(requests).toBe(TRANSACT_ATTEMPTS);
  });

  it('keeps a transaction\'s ClientRequestToken when it sends it again after a throttle, and takes a new one after a cancellation', async () => {
    const client = sdkClient();
    const tokens: string[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        // The serialized body: bytes in the SDK's JSON protocols now (a string method on them is deprecated).
        const { body } = args.request as { body?: string | Uint8Array };
        const text = body === undefined ? '{}' : typeof body === 'string' ? body : new TextDecoder().decode(body);
        tokens.push(String((JSON.parse(text) as { ClientRequestToken?: string }).ClientRequestToken));
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low', name: 'recordTokens' },
    );
    // Throttled (sent again, same transaction), then cancelled for a conflict (nothing written: a new transaction).
    refusedBelowTheSdk(client, ['throttle', 'conflict']);
    const key = { pk: `STORE_TEST#${uuidv7()}`, sk: 'ITEM' };

    const { attempts } = await transact({ client: documentClientOf(client), sleep: async () => undefined }, [{ Put: { TableName: f.table, Item: { ...key, n: 1 } } }]);

    expect(attempts).toBe(3);
    expect(tokens).toHaveLength(3);
    expect(tokens[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokens[1]).toBe(tokens[0]);
    expect(tokens[2]).not.toBe(tokens[0]);
    expect(await getItem({ client: f.client, table: f.table }, key)).toMatchObject({ n: 1 });
  });

  it('answers 503 when a request stays throttled above the SDK client too', async () => {
    const wrapper = flaky(f.client);
    const key = { pk: `STORE_TEST#${uuidv7()}`, sk: 'ITEM' };
    const refused: DocumentClient = {
      send: async (command) => {
        if (command instanceof TransactWriteCommand) {
          throw new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput.', $metadata: metadata });
        }
        return wrapper.client.send(command);
      },
    };
    await expect(transact({ client: refused, sleep: async () => undefined }, [{ Put: { TableName: f.table, Item: { ...key, n: 1 } } }])).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});

describe('a posting under sustained throttling (the real SDK client on DynamoDB Local, failures injected below its retry step)', () => {
  /** Every TransactWriteItems the client sends, counted; `mode` says what DynamoDB answers it. */
  function faultyLedgerClient() {
    const sdk = dynamoDbClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: localDatabaseCredentials('faulty-LedgerTable') });
    const state = { mode: 'answer' as 'answer' | 'throttle' | 'lose-after-commit', sends: 0 };
    sdk.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        state.sends += 1;
        if (state.mode === 'throttle') {
          return dynamoDbAnswer(400, REFUSALS.throttle);
        }
        const answered = await next(args);
        if (state.mode === 'lose-after-commit') {
          // Committed, and the answer lost on the way back: once.
          state.mode = 'answer';
          throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET' });
        }
        return answered;
      },
      { step: 'deserialize', priority: 'low', name: 'faultyLedger' },
    );
    return { client: documentClientOf(sdk), state };
  }

  it('sends it at most TRANSACT_ATTEMPTS times, answers 503 retryable, and the retry with the same key moves the money once', async () => {
    const faulty = faultyLedgerClient();
    const f = await ledgerFixture({ wrap: () => faulty.client });
    const [source, sink] = [await f.open({ floor: null }), await f.open()];
    const key = uuidv7();
    faulty.state.sends = 0;
    faulty.state.mode = 'throttle';

    const refused = await f.transfer(source.id, sink.id, 250, {}, key).catch((e: unknown) => e);

    expect(refused).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(problemBody(refused, 'r').retryable).toBe(true);
    expect(faulty.state.sends).toBe(TRANSACT_ATTEMPTS);
    expect(await f.balance(sink.id)).toMatchObject({ posted: 0 });

    faulty.state.mode = 'answer';
    const posted = await f.transfer(source.id, sink.id, 250, {}, key);
    const again = await f.transfer(source.id, sink.id, 250, {}, key);

    expect(posted.status).toBe(201);
    expect(again.body).toBe(posted.body);
    expect(await f.balance(sink.id)).toMatchObject({ posted: 250 });
    expect((await f.service.listEntries(f.consumerId, f.ledgerId, sink.id, undefined, 10)).data).toHaveLength(1);
  });

  it('stops at the request\'s deadline: one send when no time is left for a backoff, 503, nothing posted', async () => {
    const faulty = faultyLedgerClient();
    const f = await ledgerFixture({ wrap: () => faulty.client });
    const [source, sink] = [await f.open({ floor: null }), await f.open()];
    faulty.state.sends = 0;
    faulty.state.mode = 'throttle';

    const refused = await withDeadline(performance.now(), () => f.transfer(source.id, sink.id, 250)).catch((e: unknown) => e);

    expect(refused).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(faulty.state.sends).toBe(1);
    expect(await f.balance(sink.id)).toMatchObject({ posted: 0 });
  });

  it('sends a posting whose answer was lost again and moves the money once', async () => {
    const faulty = faultyLedgerClient();
    const f = await ledgerFixture({ wrap: () => faulty.client });
    const [source, sink] = [await f.open({ floor: null }), await f.open()];
    faulty.state.sends = 0;
    faulty.state.mode = 'lose-after-commit';

    const posted = await f.transfer(source.id, sink.id, 250);

    expect(posted.status).toBe(201);
    expect(faulty.state.sends).toBe(2);
    expect(await f.balance(sink.id)).toMatchObject({ posted: 250 });
    expect(await f.balance(source.id)).toMatchObject({ posted: -250 });
    expect((await f.service.listEntries(f.consumerId, f.ledgerId, sink.id, undefined, 10)).data).toHaveLength(1);
  });
});

describe('ledger postings and consumer registration', () => {
  it.each(retried)('post once through %s', async (...failures) => {
    let wrapper!: ReturnType<typeof flaky>;
    const f = await ledgerFixture({ wrap: (client) => (wrapper = flaky(client)).client });
    const [source, sink] = [await f.open({ floor: null }), await f.open()];
    wrapper.fail(...failures);

    const posted = await f.transfer(source.id, sink.id, 250);

    expect(posted.status).toBe(201);
    expect(wrapper.remaining()).toBe(0);
    expect(await f.balance(sink.id)).toMatchObject({ posted: 250 });
    const entries = await f.service.listEntries(f.consumerId, f.ledgerId, sink.id, undefined, 10);
    expect(entries.data).toHaveLength(1);
  });

  it.each(retried)('register a consumer once through %s', async (...failures) => {
    const f = await ledgerFixture();
    const wrapper = flaky(f.client);
    const consumers = createConsumerStore(wrapper.client, f.table, systemClock, uuidv7, { sleep: async () => undefined });
    const name = `svc-${uuidv7().slice(-8)}`;
    wrapper.fail(...failures);

    const created = await consumers.createConsumer({ name, sub: name });

    expect(wrapper.remaining()).toBe(0);
    expect(await consumers.findConsumerByName(name)).toEqual(created);
    expect((await consumers.listConsumers()).filter((c) => c.name === name)).toHaveLength(1);
  });
});

describe('wallet writers', () => {
  let fixture: TenancyFixture;
  let wrapper: ReturnType<typeof flaky>;
  let runtime: WalletDeps;
  beforeAll(async () => {
    fixture = await tenancyFixture();
    wrapper = flaky(fixture.deps.client);
    runtime = { ...fixture.deps, client: wrapper.client, signer: () => Promise.reject(new Error('no signer here')), ledger: () => fixture.ledger };
  });
  afterAll(() => fixture?.stop());

  const operator = apiKeyPrincipals(['transfers:write', 'payments:write']);

  /** Items of a partition of the wallet table, read without the wrapper. */
  const partition = async (index: 'gsi1' | 'gsi2', pk: string) =>
    (await fixture.deps.client.send(new QueryCommand({ TableName: fixture.deps.table, IndexName: index, KeyConditionExpression: `${index}pk = :pk`, ExpressionAttributeValues: { ':pk': pk } }))).Items ?? [];

  async function fundedPair() {
    const tenant = await fixture.tenant();
    const [alice, bob] = [await fixture.user(tenant.id), await fixture.user(tenant.id)];
    await fixture.ledger.post(
      tenant.ledger_id,
      { type: 'topup', legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount: 10_000, commodity: 'USD' }, { account_id: alice.cash_account_id, direction: 'credit', amount: 10_000, commodity: 'USD' }] },
      uuidv7(),
    );
    return { tenant, alice, bob };
  }

  it.each(retried)('commit a transfer saga (single-item writes: the key, the transfer, its event, the answer) once through %s (a single write conflicts)', async (...failures) => {
    const { tenant, alice, bob } = await fundedPair();
    wrapper.failAnyWrite(...failures);

    const outcome = await createTransfer(runtime, operator(tenant.id), tenant.id, { from_user_id: alice.id, to_user_id: bob.id, amount: 700 }, { idempotencyKey: uuidv7(), requestId: uuidv7() });

    expect(outcome.status, outcome.body).toBe(201);
    expect(wrapper.remaining()).toBe(0);
    expect((await fixture.ledger.getAccount(tenant.ledger_id, bob.cash_account_id)).balance.posted).toBe(700);
    expect(await storedEvents(fixture.deps, tenant.id, 'transfer.completed')).toHaveLength(1);
    expect(await partition('gsi2', `USER#${alice.id}#TRANSFERS_SENT`)).toHaveLength(1);
  });

  it('commit a transfer saga once, answered 201, when the answer of every single write\'s first attempt is lost after it was applied', async () => {
    const { tenant, alice, bob } = await fundedPair();
    const losing = losingFirstAnswers(fixture.deps.client);

    const outcome = await createTransfer({ ...runtime, client: losing.client }, operator(tenant.id), tenant.id, { from_user_id: alice.id, to_user_id: bob.id, amount: 700 }, { idempotencyKey: uuidv7(), requestId: uuidv7() });

    expect(outcome.status, outcome.body).toBe(201);
    expect(losing.lost()).toBeGreaterThan(0);
    expect((await fixture.ledger.getAccount(tenant.ledger_id, bob.cash_account_id)).balance.posted).toBe(700);
    expect(await storedEvents(fixture.deps, tenant.id, 'transfer.completed')).toHaveLength(1);
    expect(await partition('gsi2', `USER#${alice.id}#TRANSFERS_SENT`)).toHaveLength(1);
  });

  it('answer a kept-answer request (Idempotency-Key) with its own answer, its function run once, when its key\'s writes lose their answers', async () => {
    const tenant = await fixture.tenant();
    const losing = losingFirstAnswers(fixture.deps.client);
    let runs = 0;
    const request = { operation: 'test.kept', idempotencyKey: uuidv7(), request: { n: 1 }, principal: operator(tenant.id), requestId: uuidv7() };

    const outcome = await keepAnswer({ ...runtime, client: losing.client }, request, async () => {
      runs += 1;
      return { status: 201, body: '{"ok":true}' };
    });

    // Before the store recognised its own write, the key's own "started" record answered 409 idempotency_in_flight.
    expect(outcome).toMatchObject({ status: 201, body: '{"ok":true}', replayed: false });
    expect(runs).toBe(1);
    expect(losing.lost()).toBe(2);
    const replay = await keepAnswer(runtime, request, async () => ({ status: 500, body: 'not again' }));
    expect(replay).toMatchObject({ status: 201, body: '{"ok":true}', replayed: true });
  });

  it('create a merchant (a create-once put) whose answer was lost after it was applied: the merchant, not a failed condition', async () => {
    const tenant = await fixture.tenant();
    const losing = losingFirstAnswers(fixture.deps.client);

    const merchant = await createMerchant({ ...runtime, client: losing.client }, tenant.id, { name: 'Lost answer shop' });

    expect(losing.lost()).toBe(1);
    expect(await getItem(fixture.deps, { pk: `MERCHANT#${merchant.id}`, sk: 'MERCHANT' })).toMatchObject({ id: merchant.id, name: 'Lost answer shop' });
  });

  it.each(retried)('authorize and capture a payment once through %s', async (...failures) => {
    const { tenant, alice } = await fundedPair();
    const merchant = await createMerchant(runtime, tenant.id, { name: 'Corner shop' });

    wrapper.fail(...failures);
    const authorized = await createPayment(runtime, operator(tenant.id), tenant.id, { user_id: alice.id, merchant_id: merchant.id, amount: 1_200, currency: 'USD', capture: false }, { idempotencyKey: uuidv7(), requestId: uuidv7() });
    expect(authorized.status, authorized.body).toBe(201);
    const payment = JSON.parse(authorized.body) as { id: string };
    wrapper.fail(...failures);
    const captured = await resolvePayment(runtime, operator(tenant.id), tenant.id, payment.id, 'capture', {}, { idempotencyKey: uuidv7(), requestId: uuidv7() });

    expect(captured.status, captured.body).toBe(200);
    expect(wrapper.remaining()).toBe(0);
    expect(JSON.parse(captured.body)).toMatchObject({ status: 'captured', captured_amount: 1_200 });
    expect((await fixture.ledger.getAccount(tenant.ledger_id, alice.cash_account_id)).balance.posted).toBe(10_000 - 1_200);
    expect(await storedEvents(fixture.deps, tenant.id, 'payment.authorized')).toHaveLength(1);
    expect(await storedEvents(fixture.deps, tenant.id, 'payment.captured')).toHaveLength(1);
  });

  it.each(retried)('create and revoke a support access grant once through %s', async (...failures) => {
    const tenant = await fixture.tenant();
    const engineer = await createStaff(fixture.deps, { email: `eng-${uuidv7()}@example.test`, password: 'a long enough password', role: 'vendor_support' });
    const admin: Principal = { kind: 'partner_admin', id: `admin-${uuidv7()}`, tenantId: tenant.id, scopes: new Set(['support_access:manage']) };

    wrapper.fail(...failures);
    const grant = await createGrant(runtime, admin, { staff_id: engineer.id, reason: 'incident', ticket_reference: 'T-1', expires_at: new Date(Date.now() + 3_600_000).toISOString() }, uuidv7());
    expect(wrapper.remaining()).toBe(0);
    wrapper.fail(...failures);
    const revoked = await revokeGrant(runtime, admin, grant.id, uuidv7());

    expect(wrapper.remaining()).toBe(0);
    expect(revoked.revoked_at).not.toBeNull();
    expect(await partition('gsi1', walletKeys.tenantGrants(tenant.id))).toHaveLength(1);
    expect(await getItem(fixture.deps, walletKeys.liveGrant(engineer.id, tenant.id))).toMatchObject({ grant_id: grant.id, revoked: true });
    const audit = await fixture.deps.client.send(
      new QueryCommand({ TableName: fixture.deps.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': walletKeys.auditPartition(tenant.id) } }),
    );
    const actions = (audit.Items ?? []).map((item) => item.action).filter((action) => String(action).startsWith('support_access_grant'));
    expect(actions.sort()).toEqual(['support_access_grant.create', 'support_access_grant.revoke']);
  });
});
