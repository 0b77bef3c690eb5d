import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsJsonClient, AwsServiceError, signV4, type AwsCredentials } from '../../shared/aws/aws-json';
import { JsonDocumentClient, TransactWriteCommand, UpdateCommand } from '../../shared/aws/dynamodb';

/**
 * The platform's own AWS JSON-protocol client (shared/aws/aws-json.ts), which every Lambda uses in
 * place of the SDK: its Signature Version 4 is held against the SDK's own signer, and its
 * behaviour (errors, retries, idempotency tokens, endpoints) against a loopback stand-in server.
 * DynamoDB itself is exercised by every other test of the suite, through DynamoDB Local.
 */

/** The SDK signer's hash, on node:crypto (its own Sha256 packages are not our dependencies). */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | Uint8Array) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : Buffer.from(secret));
  }
  update(data: string | Uint8Array) {
    this.hash.update(typeof data === 'string' ? data : Buffer.from(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

const cases: { label: string; credentials: AwsCredentials; region: string; service: string; target: string; body: string; host: string }[] = [
  { label: 'DynamoDB with a session token', credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', sessionToken: 'FQoGZXIvYXdzE//token==' }, region: 'eu-west-1', service: 'dynamodb', target: 'DynamoDB_20120810.TransactWriteItems', body: '{"TransactItems":[{"Put":{"TableName":"t","Item":{"pk":{"S":"ünïcødé ✓"}}}}]}', host: 'dynamodb.eu-west-1.amazonaws.com' },
  { label: 'KMS without one', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }, region: 'us-east-1', service: 'kms', target: 'TrentService.Sign', body: '{"KeyId":"k","Message":"bWVzc2FnZQ=="}', host: 'kms.us-east-1.amazonaws.com' },
  { label: 'a local endpoint with a port and an empty body', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, region: 'us-east-1', service: 'dynamodb', target: 'DynamoDB_20120810.GetItem', body: '', host: '127.0.0.1:8000' },
];

describe('Signature Version 4', () => {
  it.each(cases)('signs $label exactly as the SDK signer does', async ({ credentials, region, service, target, body, host }) => {
    const now = new Date('2026-11-25T12:34:56.789Z');
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target };

    const ours = signV4({ method: 'POST', host, path: '/', headers, body }, credentials, region, service, now);

    const sdk = await new SignatureV4({ credentials, region, service, sha256: NodeSha256 as never }).sign(
      { method: 'POST', protocol: 'https:', hostname: host.split(':')[0]!, path: '/', query: {}, headers: { ...headers, host }, body } as never,
      { signingDate: now },
    );
    const sdkHeaders = (sdk as unknown as { headers: Record<string, string> }).headers;
    expect(ours.authorization).toBe(sdkHeaders.authorization);
    expect(ours['x-amz-date']).toBe(sdkHeaders['x-amz-date']);
    expect(ours['x-amz-content-sha256']).toBe(sdkHeaders['x-amz-content-sha256']);
    expect(ours['x-amz-security-token']).toBe(sdkHeaders['x-amz-security-token']);
  });
});

describe('the JSON client', () => {
  let server: Server;
  let base: string;
  const seen: { target: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  /** What the stand-in answers, in order; the last one repeats. */
  let script: { status: number; body: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ target: String(req.headers['x-amz-target']), headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown> });
        const answer = script.length > 1 ? script.shift()! : script[0]!;
        res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'req-1' }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const client = (maxAttempts = 3) => new AwsJsonClient({ service: 'dynamodb', region: 'us-east-1', endpoint: base, credentials: () => ({ accessKeyId: 'a', secretAccessKey: 'b' }), maxAttempts });
  const answering = (...answers: { status: number; body: Record<string, unknown> }[]) => {
    seen.length = 0;
    script = answers;
  };

  it('sends the target and the JSON 1.0 content type, signed, and answers the parsed body', async () => {
    answering({ status: 200, body: { Item: { pk: { S: 'x' } } } });

    await expect(client().call('DynamoDB_20120810.GetItem', { TableName: 't' })).resolves.toEqual({ Item: { pk: { S: 'x' } } });

    expect(seen[0]).toMatchObject({ target: 'DynamoDB_20120810.GetItem', body: { TableName: 't' } });
    expect(seen[0]!.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(seen[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=a\/\d{8}\/us-east-1\/dynamodb\/aws4_request/);
  });

  it('throws the service error by its short name, with the payload and status, and does not retry a client fault', async () => {
    answering({ status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed', Item: { pk: { S: 'old' } } } });

    const error = await client().call('DynamoDB_20120810.UpdateItem', {}).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({ name: 'ConditionalCheckFailedException', message: 'The conditional request failed', Item: { pk: { S: 'old' } }, $fault: 'client', $metadata: { httpStatusCode: 400, requestId: 'req-1' } });
    expect(seen).toHaveLength(1);
  });

  it('retries throttling and server faults within its attempts, then answers', async () => {
    answering({ status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'slow down' } }, { status: 500, body: { __type: 'InternalServerError' } }, { status: 200, body: {} });

    await expect(client(3).call('DynamoDB_20120810.PutItem', {})).resolves.toEqual({});
    expect(seen).toHaveLength(3);

    answering({ status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'slow down' } });
    await expect(client(2).call('DynamoDB_20120810.PutItem', {})).rejects.toMatchObject({ name: 'ThrottlingException', $metadata: { attempts: 2 } });
  });

  it('sends one ClientRequestToken for a transaction and every retry of it, and a new one for the next', async () => {
    answering({ status: 500, body: { __type: 'InternalServerError' } }, { status: 200, body: {} }, { status: 200, body: {} });
    const documents = new JsonDocumentClient(client(3));
    const write = () => new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 't', Item: { pk: 'a', n: 1 } } }] });

    await documents.send(write());
    await documents.send(write());

    const tokens = seen.map((request) => request.body.ClientRequestToken);
    expect(tokens[0]).toEqual(expect.any(String));
    expect(tokens[1]).toBe(tokens[0]);
    expect(tokens[2]).not.toBe(tokens[0]);
    expect(seen[0]!.body.TransactItems).toEqual([{ Put: { TableName: 't', Item: { pk: { S: 'a' }, n: { N: '1' } } } }]);
  });

  it('marshals keys and values and unmarshals what comes back, as the SDK document client does', async () => {
    answering({ status: 200, body: { Attributes: { n: { N: '2' }, tags: { SS: ['a'] }, nested: { M: { on: { BOOL: true } } } } } });
    const documents = new JsonDocumentClient(client());

    const result = await documents.send(
      new UpdateCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1, ':skip': undefined }, ReturnValues: 'ALL_NEW' }),
    );

    expect(seen[0]!.body).toMatchObject({ Key: { pk: { S: 'a' }, sk: { S: 'b' } }, ExpressionAttributeValues: { ':one': { N: '1' } } });
    expect(result.Attributes).toEqual({ n: 2, tags: new Set(['a']), nested: { on: true } });
  });

  it('takes its endpoint from AWS_ENDPOINT_URL_<SERVICE> when none is given', async () => {
    answering({ status: 200, body: { SecretString: '{}' } });
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = base;
    try {
      const secrets = new AwsJsonClient({ service: 'secretsmanager', region: 'eu-west-1', credentials: () => ({ accessKeyId: 'a', secretAccessKey: 'b' }) });
      await expect(secrets.call('secretsmanager.GetSecretValue', { SecretId: 's' })).resolves.toEqual({ SecretString: '{}' });
      expect(seen[0]!.headers['content-type']).toBe('application/x-amz-json-1.1');
    } finally {
      delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    }
  });
});
