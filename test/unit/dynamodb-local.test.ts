import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, PutItemCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDbLocalCommand, localDocumentClient, localSdkClient, startDynamoDbLocal } from '../../local/dynamodb';
import { freePort } from '../../local/ports';
import { ensureTables } from '../../local/tables';
import { GetCommand, PutCommand } from '../../shared/aws/dynamodb';
import { uuidv7 } from '../../shared/kernel/ids';

describe('the DynamoDB Local launcher', () => {
  it('runs the packaged jar with telemetry off, so a local run sends nothing past loopback', () => {
    const { command, args } = dynamoDbLocalCommand({ port: 8123, scratchDir: '/tmp/x' });
    expect(command).toBe('java');
    // Left on, DynamoDB Local looks up cognito-identity.<region>.amazonaws.com to report usage.
    expect(args).toContain('-disableTelemetry');
    const jar = args[args.indexOf('-jar') + 1]!;
    expect(existsSync(jar)).toBe(true);
    const libraryPath = args.find((arg) => arg.startsWith('-Djava.library.path='))!.split('=')[1]!;
    expect(existsSync(libraryPath)).toBe(true);
    expect(args.slice(args.indexOf('-port'), args.indexOf('-port') + 2)).toEqual(['-port', '8123']);
  });

  it('leaves nothing in the temporary folder once stopped (it copies its SQLite library there at each start)', async () => {
    // Its own folder, by name: other test files, and another suite beside this one, make theirs meanwhile.
    const dynamodb = await startDynamoDbLocal();
    const { scratchDir } = dynamodb;
    expect(dirname(scratchDir)).toBe(tmpdir());
    expect(basename(scratchDir)).toMatch(/^dynamodb-local-/);
    // The JVM's temporary files (the SQLite library) go into it, not beside it.
    expect(readdirSync(scratchDir).some((name) => name.endsWith('libsqlite4java.so'))).toBe(true);
    await dynamodb.stop();
    expect(existsSync(scratchDir)).toBe(false);
  });

  it('keeps its temporary files in the data folder when it has one, emptied at the next start (a SIGKILL cleans nothing up)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ddb-data-'));
    try {
      // What a killed run left behind.
      mkdirSync(join(dataDir, 'tmp'));
      writeFileSync(join(dataDir, 'tmp', 'sqlite-392-left-behind-libsqlite4java.so'), '');
      const dynamodb = await startDynamoDbLocal({ dataDir });
      const during = readdirSync(join(dataDir, 'tmp'));
      await dynamodb.stop();
      expect(during).not.toContain('sqlite-392-left-behind-libsqlite4java.so');
      expect(existsSync(join(dataDir, 'tmp'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps its databases in memory for tests, or in the data folder for npm start, one per access key', () => {
    const inMemory = dynamoDbLocalCommand({ port: 8000, scratchDir: '/tmp/x' }).args;
    expect(inMemory).toContain('-inMemory');
    expect(inMemory).not.toContain('-dbPath');
    // Not one shared database: each table is a database of its own (localDatabaseOf).
    expect(inMemory).not.toContain('-sharedDb');
    const onDisk = dynamoDbLocalCommand({ port: 8000, dataDir: '.data/dynamodb', scratchDir: '/tmp/x' }).args;
    expect(onDisk).not.toContain('-inMemory');
    const path = onDisk[onDisk.indexOf('-dbPath') + 1]!;
    expect(path.startsWith('/')).toBe(true);
    expect(path.endsWith('.data/dynamodb')).toBe(true);
  });
});

describe('a database per table', () => {
  it('keeps the ledger table apart: a client signing as the wallet table finds no ledger table, the document client reaches both', async () => {
    const dynamodb = await startDynamoDbLocal();
    try {
      const tables = await ensureTables(dynamodb.endpoint, `apart${uuidv7().slice(-8)}`);
      const asWallet = localSdkClient(dynamodb.endpoint, tables.wallet.name);
      try {
        await expect(asWallet.send(new DescribeTableCommand({ TableName: tables.ledger.name }))).rejects.toBeInstanceOf(ResourceNotFoundException);
        expect((await asWallet.send(new DescribeTableCommand({ TableName: tables.wallet.name }))).Table?.TableName).toBe(tables.wallet.name);
      } finally {
        asWallet.destroy();
      }
      const documents = localDocumentClient(dynamodb.endpoint);
      for (const table of [tables.wallet.name, tables.ledger.name]) {
        await documents.send(new PutCommand({ TableName: table, Item: { pk: 'P', sk: 'S', table } }));
        expect((await documents.send(new GetCommand({ TableName: table, Key: { pk: 'P', sk: 'S' } }))).Item).toEqual({ pk: 'P', sk: 'S', table });
      }
    } finally {
      await dynamodb.stop();
    }
  });

  it('moves a data folder of one shared database (earlier versions) to a database per table, data and all, once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ddb-shared-'));
    try {
      // An earlier version's data: both tables in shared-local-instance.db.
      const launch = dynamoDbLocalCommand({ port: await freePort(), dataDir, scratchDir: join(dataDir, 'tmp') });
      const port = launch.args[launch.args.indexOf('-port') + 1]!;
      mkdirSync(join(dataDir, 'tmp'));
      const old = spawn(launch.command, [...launch.args, '-sharedDb'], { stdio: 'ignore' });
      const exited = new Promise((resolve) => old.once('exit', resolve));
      const endpoint = `http://127.0.0.1:${port}`;
      const shared = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'any', secretAccessKey: 'any' } });
      for (let attempt = 0; ; attempt += 1) {
        try {
          await shared.send(new ListTablesCommand({}));
          break;
        } catch (error) {
          if (attempt > 150) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      const names = { wallet: 'before-WalletTable', ledger: 'before-LedgerTable' };
      for (const name of Object.values(names)) {
        await shared.send(new CreateTableCommand({ TableName: name, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] }));
        await shared.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'kept' }, table: { S: name } } }));
      }
      shared.destroy();
      old.kill('SIGTERM');
      await exited;
      expect(readdirSync(dataDir)).toContain('shared-local-instance.db');

      for (const start of [1, 2]) {
        const dynamodb = await startDynamoDbLocal({ dataDir, databases: ['WalletTable', 'LedgerTable'] });
        try {
          expect(readdirSync(dataDir).filter((name) => name.endsWith('.db')).sort()).toEqual(['LedgerTable_us-east-1.db', 'WalletTable_us-east-1.db']);
          const documents = localDocumentClient(dynamodb.endpoint);
          for (const name of Object.values(names)) {
            expect((await documents.send(new GetCommand({ TableName: name, Key: { pk: 'kept' } }))).Item, `start ${start}`).toEqual({ pk: 'kept', table: name });
            const own = localSdkClient(dynamodb.endpoint, name);
            expect((await own.send(new ListTablesCommand({}))).TableNames).toEqual([name]);
            own.destroy();
          }
        } finally {
          await dynamodb.stop();
        }
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
