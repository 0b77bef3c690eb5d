import { createServer, connect, type Server, type Socket } from 'node:net';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_REGION } from '../../local/dynamodb';
import { ensureTables } from '../../local/tables';
import { PutCommand, UpdateCommand, documentClientOf, dynamoDbClient, localDatabaseCredentials, createDocumentClient, type DocumentClient } from '../../shared/aws/dynamodb';
import { ATTEMPT_TIMEOUT_MS, sdkClientConfig } from '../../shared/aws/clients';
import { getItem, isConditionalCheckFailed, putItem, queryPage, updateItem, WRITE_ID } from '../../shared/aws/store';
import { embeddedTimeoutScale, transientAwsFailure } from '../../shared/kernel/retry';
import { uuidv7 } from '../../shared/kernel/ids';

/**
 * An attempt whose answer never comes is abandoned (shared/aws/clients.ts: `throwOnRequestTimeout`),
 * and a conditional single write sent again after a lost answer recognises its own earlier attempt
 * (shared/aws/store.ts) instead of reporting its own write as another writer's. Everything runs on
 * the test run's DynamoDB Local: the lost answers are made by a TCP proxy in front of it that
 * withholds answers, or by a client wrapper that sends the request and then throws as if the
 * answer had been lost. No assertion on time: outcomes only (the error, requests seen, items).
 */

/**
 * A TCP proxy on 127.0.0.1 in front of DynamoDB Local. The answers on the first `withhold`
 * connections never reach the client (the request reaches DynamoDB Local and is applied); a
 * later connection's bytes are forwarded only once DynamoDB Local has answered every withheld
 * request, so a retry always finds the lost attempt applied, whatever the machine's speed.
 */
async function withholdingProxy(target: string, withhold: number) {
  const { hostname, port } = new URL(target);
  let connections = 0;
  let requests = 0;
  let withheld = 0;
  const answered: Promise<void>[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const index = (connections += 1);
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const held = index <= withhold;
    let signalAnswered: () => void = () => undefined;
    let answeredHere = false;
    if (held) answered.push(new Promise<void>((resolve) => (signalAnswered = resolve)));
    const before = held ? Promise.resolve() : Promise.all(answered.slice(0, withhold));
    client.on('data', (chunk: Buffer) => {
      requests += (chunk.toString('latin1').match(/^POST /gm) ?? []).length;
      void before.then(() => upstream.write(chunk));
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!held) {
        client.write(chunk);
        return;
      }
      // One answer may come in several chunks: counted once per connection (one request each: the client drops it after its timeout).
      if (answeredHere) return;
      answeredHere = true;
      withheld += 1;
      signalAnswered();
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    /** HTTP requests the client sent through the proxy. */
    requests: () => requests,
    /** Answers DynamoDB Local gave that the client never received. */
    withheld: () => withheld,
    /** Settles when DynamoDB Local has answered the first withheld request. */
    firstWithheld: () => answered[0],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A lost answer as the SDK's handler throws it after its request timeout (@smithy/node-http-handler). */
const timedOut = () => Object.assign(new Error('a request has exceeded the configured requestTimeout'), { name: 'TimeoutError', code: 'ETIMEDOUT' });

/**
 * A client whose next `lose` single writes reach DynamoDB Local (and are applied, or refused by
 * their condition) but whose answers are lost: it throws as the SDK does after its request
 * timeout. `before: true` loses the request before it is sent instead.
 */
function losing(client: DocumentClient) {
  let lose = 0;
  let before = false;
  const sent: (PutCommand | UpdateCommand)[] = [];
  const wrapped: DocumentClient = {
    send: async (command) => {
      if (!(command instanceof PutCommand || command instanceof UpdateCommand)) return client.send(command);
      if (lose > 0) {
        lose -= 1;
        if (before) throw timedOut();
        sent.push(command);
        await client.send(command).catch(() => undefined);
        throw timedOut();
      }
      sent.push(command);
      return client.send(command);
    },
  };
  return {
    client: wrapped,
    lose: (count = 1, options: { before?: boolean } = {}) => {
      lose = count;
      before = options.before ?? false;
    },
    sent,
  };
}

const instant = { sleep: async () => undefined };

describe('an attempt without an answer (the SDK client settings, a withholding proxy in front of DynamoDB Local)', () => {
  let table: string;
  let local: DocumentClient;
  beforeAll(async () => {
    table = (await ensureTables(inject('dynamodbEndpoint'), `t${uuidv7().replace(/-/g, '').slice(-12)}`)).wallet.name;
    local = createDocumentClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION });
  });

  // Long beside a loopback answer (milliseconds), short enough for a test: a withheld answer always reaches it.
  const requestTimeoutMs = 1_500;
  const throughProxy = (endpoint: string) => documentClientOf(dynamoDbClient({ endpoint, region: LOCAL_REGION, credentials: localDatabaseCredentials(table), requestTimeoutMs }));

  it('is abandoned with TimeoutError, which the retry policy names lost, though DynamoDB Local applied it', async () => {
    const proxy = await withholdingProxy(inject('dynamodbEndpoint'), 1);
    try {
      const key = { pk: `LOST#${uuidv7()}`, sk: 'ITEM' };
      const error = await throughProxy(proxy.endpoint)
        .send(new PutCommand({ TableName: table, Item: { ...key, n: 1 } }))
        .catch((e: unknown) => e);

      expect(error).toMatchObject({ name: 'TimeoutError' });
      expect(transientAwsFailure(error)).toBe('lost');
      expect(proxy.requests()).toBe(1);
      await proxy.firstWithheld();
      expect(proxy.withheld()).toBe(1);
      expect(await getItem({ client: local, table }, key)).toEqual({ ...key, n: 1 });
    } finally {
      await proxy.close();
    }
  });

  it('is sent again by the store, and a create-once put whose lost attempt was applied succeeds (its own item, not a failed condition)', async () => {
    const proxy = await withholdingProxy(inject('dynamodbEndpoint'), 1);
    try {
      const key = { pk: `LOST#${uuidv7()}`, sk: 'ITEM' };
      const item = { ...key, entity: 'audit', id: uuidv7(), amounts: [1, 2], meta: { a: 'b' }, gone: undefined };

      await putItem({ client: throughProxy(proxy.endpoint), table, ...instant }, item, { condition: 'attribute_not_exists(pk)' });

      expect(proxy.withheld()).toBe(1);
      expect(proxy.requests()).toBeGreaterThanOrEqual(2);
      expect(await getItem({ client: local, table }, key)).toEqual({ ...key, entity: 'audit', id: item.id, amounts: [1, 2], meta: { a: 'b' } });
    } finally {
      await proxy.close();
    }
  });

  it('answers 503 service_unavailable at the request\'s deadline when no attempt gets an answer', async () => {
    const proxy = await withholdingProxy(inject('dynamodbEndpoint'), Number.POSITIVE_INFINITY);
    try {
      const key = { pk: `LOST#${uuidv7()}`, sk: 'ITEM' };
      // The test's clock: it moves by what is slept; full backoffs of 200 and 400 ms (lost: the overloaded base) against 500 ms.
      let now = 0;
      const timing = { sleep: async (ms: number) => void (now += ms), retryTiming: { now: () => now, random: () => 1 }, deadlineMs: 500 };

      const error = await getItem({ client: throughProxy(proxy.endpoint), table, ...timing }, key).catch((e: unknown) => e);

      expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(proxy.requests()).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('is the platform\'s setting for every client: the timeout throws, 3 s on AWS, the function\'s 10 s on DynamoDB Local, both scaled like the deadline', () => {
    const aws = sdkClientConfig().requestHandler;
    const emulator = sdkClientConfig({ endpoint: inject('dynamodbEndpoint') }).requestHandler;
    expect(aws).toMatchObject({ throwOnRequestTimeout: true, requestTimeout: ATTEMPT_TIMEOUT_MS * embeddedTimeoutScale() });
    expect(emulator).toMatchObject({ throwOnRequestTimeout: true, requestTimeout: 10_000 * embeddedTimeoutScale() });
  });
});

describe('a conditional single write sent again after a lost answer (DynamoDB Local, the answer lost at the client)', () => {
  let table: string;
  let local: DocumentClient;
  beforeAll(async () => {
    table = (await ensureTables(inject('dynamodbEndpoint'), `t${uuidv7().replace(/-/g, '').slice(-12)}`)).wallet.name;
    local = createDocumentClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION });
  });
  const newKey = () => ({ pk: `LOST#${uuidv7()}`, sk: 'ITEM' });

  it('put: its own applied attempt is success; sent twice, the second asking for the item', async () => {
    const faulty = losing(local);
    const key = newKey();
    const item = { ...key, entity: 'access_log', id: uuidv7(), tags: new Set(['a', 'b']), blob: new Uint8Array([1, 2, 3]), n: 0.1 + 0.2, zero: -0, empty: null, list: [1, undefined, 'a'] };
    faulty.lose(1);

    await putItem({ client: faulty.client, table, ...instant }, item, { condition: 'attribute_not_exists(pk)' });

    expect(faulty.sent).toHaveLength(2);
    expect(faulty.sent[0]!.input.ReturnValuesOnConditionCheckFailure).toBeUndefined();
    expect(faulty.sent[1]!.input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(await getItem({ client: local, table }, key)).toMatchObject({ id: item.id, n: item.n, tags: new Set(['a', 'b']) });
  });

  it('put: another writer\'s item is still a failed condition, whether the lost attempt reached DynamoDB or not', async () => {
    for (const before of [false, true]) {
      const faulty = losing(local);
      const key = newKey();
      await putItem({ client: local, table }, { ...key, id: 'theirs' });
      faulty.lose(1, { before });

      const error = await putItem({ client: faulty.client, table, ...instant }, { ...key, id: 'mine' }, { condition: 'attribute_not_exists(pk)' }).catch((e: unknown) => e);

      expect(isConditionalCheckFailed(error)).toBe(true);
      expect(await getItem({ client: local, table }, key)).toEqual({ ...key, id: 'theirs' });
    }
  });

  it('put: an item that differs from the one sent in one value is another writer\'s', async () => {
    const faulty = losing(local);
    const key = newKey();
    await putItem({ client: local, table }, { ...key, id: 'same', n: 1, at: 'x' });
    faulty.lose(1, { before: true });

    const error = await putItem({ client: faulty.client, table, ...instant }, { ...key, id: 'same', n: 2, at: 'x' }, { condition: 'attribute_not_exists(pk)' }).catch((e: unknown) => e);

    expect(isConditionalCheckFailed(error)).toBe(true);
  });

  it('update: its own applied transition is success, answered with the item as it is, without the write id', async () => {
    const faulty = losing(local);
    const key = newKey();
    await putItem({ client: local, table }, { ...key, status: 'pending' });
    faulty.lose(1);

    const updated = await updateItem({ client: faulty.client, table, ...instant }, key, {
      expression: 'SET #status = :done',
      condition: '#status = :pending',
      names: { '#status': 'status' },
      values: { ':done': 'done', ':pending': 'pending' },
      returnValues: 'ALL_NEW',
    });

    expect(updated).toEqual({ ...key, status: 'done' });
    expect(faulty.sent).toHaveLength(2);
    expect(faulty.sent[1]!.input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(await getItem({ client: local, table }, key)).toEqual({ ...key, status: 'done' });
  });

  it('update: an unconditional counter whose lost attempt was applied counts once', async () => {
    const faulty = losing(local);
    const key = newKey();
    faulty.lose(2);

    // A placeholder named like the SET keyword is not the SET clause the store adds its write id to.
    await updateItem({ client: faulty.client, table, ...instant }, key, { expression: 'ADD n :one, #set :one REMOVE gone', names: { '#set': 'set' }, values: { ':one': 1 } });

    expect(faulty.sent).toHaveLength(3);
    expect(await getItem({ client: local, table }, key)).toEqual({ ...key, n: 1, set: 1 });
    expect((await queryPage({ client: local, table }, { partition: key.pk, cursor: undefined, limit: 10 })).items).toEqual([{ ...key, n: 1, set: 1 }]);
  });

  it('update: another writer\'s transition is still a failed condition', async () => {
    for (const before of [false, true]) {
      const faulty = losing(local);
      const key = newKey();
      await putItem({ client: local, table }, { ...key, status: 'pending' });
      // Another writer moves the item on first (with a write id of its own).
      await updateItem({ client: local, table }, key, { expression: 'SET #status = :done', condition: '#status = :pending', names: { '#status': 'status' }, values: { ':done': 'cancelled', ':pending': 'pending' } });
      faulty.lose(1, { before });

      const error = await updateItem({ client: faulty.client, table, ...instant }, key, {
        expression: 'SET #status = :done',
        condition: '#status = :pending',
        names: { '#status': 'status' },
        values: { ':done': 'done', ':pending': 'pending' },
      }).catch((e: unknown) => e);

      expect(isConditionalCheckFailed(error)).toBe(true);
      expect(await getItem({ client: local, table }, key)).toEqual({ ...key, status: 'cancelled' });
    }
  });

  it('update: the write id stays in the table, never in what the store answers', async () => {
    const key = newKey();
    await updateItem({ client: local, table }, key, { expression: 'SET a = :a', values: { ':a': 1 } });
    const raw = await local.send(new UpdateCommand({ TableName: table, Key: key, UpdateExpression: 'SET b = :b', ExpressionAttributeValues: { ':b': 2 }, ReturnValues: 'ALL_NEW' }));
    expect(raw.Attributes?.[WRITE_ID]).toMatch(/^[0-9a-f-]{36}$/);
    expect(await getItem({ client: local, table }, key)).toEqual({ ...key, a: 1, b: 2 });
  });
});
