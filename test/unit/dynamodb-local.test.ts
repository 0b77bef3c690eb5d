import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { dynamoDbLocalCommand, startDynamoDbLocal } from '../../local/dynamodb';

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
    // Only its own entries: other test files may be making theirs meanwhile.
    const ours = () => readdirSync(tmpdir()).filter((name) => name.startsWith('dynamodb-local-') || name.endsWith('libsqlite4java.so'));
    const before = new Set(ours());
    const dynamodb = await startDynamoDbLocal();
    const during = ours().filter((name) => !before.has(name));
    await dynamodb.stop();
    expect(during).toHaveLength(1);
    expect(during[0]).toMatch(/^dynamodb-local-/);
    expect(ours().filter((name) => !before.has(name))).toEqual([]);
  }, 60_000);

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
  }, 60_000);

  it('keeps one database in memory for tests, or in the data folder for npm start', () => {
    const inMemory = dynamoDbLocalCommand({ port: 8000, scratchDir: '/tmp/x' }).args;
    expect(inMemory).toEqual(expect.arrayContaining(['-inMemory', '-sharedDb']));
    expect(inMemory).not.toContain('-dbPath');
    const onDisk = dynamoDbLocalCommand({ port: 8000, dataDir: '.data/dynamodb', scratchDir: '/tmp/x' }).args;
    expect(onDisk).not.toContain('-inMemory');
    const path = onDisk[onDisk.indexOf('-dbPath') + 1]!;
    expect(path.startsWith('/')).toBe(true);
    expect(path.endsWith('.data/dynamodb')).toBe(true);
  });
});
