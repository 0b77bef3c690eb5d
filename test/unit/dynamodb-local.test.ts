import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dynamoDbLocalCommand } from '../../local/dynamodb';

describe('the DynamoDB Local launcher', () => {
  it('runs the packaged jar with telemetry off, so a local run sends nothing past loopback', () => {
    const { command, args } = dynamoDbLocalCommand({ port: 8123 });
    expect(command).toBe('java');
    // Left on, DynamoDB Local looks up cognito-identity.<region>.amazonaws.com to report usage.
    expect(args).toContain('-disableTelemetry');
    const jar = args[args.indexOf('-jar') + 1]!;
    expect(existsSync(jar)).toBe(true);
    const libraryPath = args.find((arg) => arg.startsWith('-Djava.library.path='))!.split('=')[1]!;
    expect(existsSync(libraryPath)).toBe(true);
    expect(args.slice(args.indexOf('-port'), args.indexOf('-port') + 2)).toEqual(['-port', '8123']);
  });

  it('keeps one database in memory for tests, or in the data folder for npm start', () => {
    const inMemory = dynamoDbLocalCommand({ port: 8000 }).args;
    expect(inMemory).toEqual(expect.arrayContaining(['-inMemory', '-sharedDb']));
    expect(inMemory).not.toContain('-dbPath');
    const onDisk = dynamoDbLocalCommand({ port: 8000, dataDir: '.data/dynamodb' }).args;
    expect(onDisk).not.toContain('-inMemory');
    const path = onDisk[onDisk.indexOf('-dbPath') + 1]!;
    expect(path.startsWith('/')).toBe(true);
    expect(path.endsWith('.data/dynamodb')).toBe(true);
  });
});
