import '../local/sdk-node-warning';
import { readFileSync } from 'node:fs';
import type { DocumentClientOptions } from '../shared/aws/dynamodb';
import * as z from '../shared/kernel/zod';
import { bootstrapFileOf, dataDirFromEnv, isAlive, stateFileOf } from '../local/data-dir';
import { LOCAL_REGION } from '../local/local-aws';

/**
 * Where the running embedded platform (`npm start`) is: local/main.ts writes
 * <DATA_DIR or .data>/platform.json when it is up and deletes it when it stops. Scripts such as
 * ledger:consumers and dev:token read it, so they need no flags on a laptop.
 */

export interface PlatformState {
  pid: number;
  urls: { public: string; ledger: string; console: string };
  dynamodbEndpoint: string;
  tables: { ledger: string; wallet: string };
  /** The development OIDC issuer's base URL, when the platform runs one. */
  oidcIssuer: string | undefined;
}

/** One line for the user: the platform is not running, or its state file is unreadable. */
export class PlatformStateError extends Error {}

const schema = z.object({
  pid: z.int().check(z.positive()),
  urls: z.object({ public: z.string(), ledger: z.string(), console: z.string() }),
  dynamodb_endpoint: z.string(),
  tables: z.object({ ledger: z.object({ name: z.string() }), wallet: z.object({ name: z.string() }) }),
  oidc_issuer: z.optional(z.string()),
});

export function platformStateFile(env: NodeJS.ProcessEnv = process.env): string {
  return stateFileOf(dataDirFromEnv(env));
}

export function readPlatformState(file = platformStateFile()): PlatformState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new PlatformStateError(`the embedded platform is not running (no ${file}); start it with npm start`);
  }
  let parsed: z.infer<typeof schema>;
  try {
    parsed = z.parse(schema, JSON.parse(text));
  } catch {
    throw new PlatformStateError(`${file} is not a platform state file; restart the platform with npm start`);
  }
  // A crash leaves the file behind; say so instead of failing later on a refused connection.
  if (!isAlive(parsed.pid)) {
    throw new PlatformStateError(`the embedded platform is not running (process ${parsed.pid} in ${file} is gone); start it with npm start`);
  }
  return {
    pid: parsed.pid,
    urls: parsed.urls,
    dynamodbEndpoint: parsed.dynamodb_endpoint,
    tables: { ledger: parsed.tables.ledger.name, wallet: parsed.tables.wallet.name },
    oidcIssuer: parsed.oidc_issuer,
  };
}

/**
 * Which table an operator script writes to: the one named by `envVar` (AWS, with the standard
 * credentials and region; DYNAMODB_ENDPOINT for another endpoint), else the running embedded
 * platform's.
 */
export function resolveTableTarget(envVar: 'LEDGER_TABLE' | 'WALLET_TABLE', table: 'ledger' | 'wallet'): { tableName: string; where: string; clientOptions: DocumentClientOptions } {
  const tableName = process.env[envVar];
  if (tableName) {
    const endpoint = process.env.DYNAMODB_ENDPOINT;
    const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (!region) throw new PlatformStateError(`${envVar} names a table in AWS: set AWS_REGION too`);
    return {
      tableName,
      where: endpoint ?? `AWS ${region}`,
      // An operator's laptop: the SDK's whole credential chain (profiles, SSO, the environment).
      clientOptions: { region, localDatabases: false, ...(endpoint ? { endpoint } : {}) },
    };
  }
  const state = readPlatformState();
  return {
    tableName: state.tables[table],
    where: `DynamoDB Local at ${state.dynamodbEndpoint}`,
    clientOptions: { endpoint: state.dynamodbEndpoint, region: LOCAL_REGION, maxAttempts: 2 },
  };
}

/** What the running platform's first start seeded (local/seed.ts): the demo tenant and its sandbox key. */
export interface LocalCredentials {
  apiKey: string;
  currency: string;
  tenantId: string;
}

const bootstrapSchema = z.object({ demo_tenant: z.object({ id: z.string(), currency: z.string(), api_key: z.string() }) });

/** The demo tenant's sandbox key from <DATA_DIR or .data>/bootstrap.json; WALLET_API_KEY (and WALLET_CURRENCY) override it. */
export function readLocalCredentials(env: NodeJS.ProcessEnv = process.env): LocalCredentials {
  const file = bootstrapFileOf(dataDirFromEnv(env));
  let demo: z.infer<typeof bootstrapSchema>['demo_tenant'] | undefined;
  try {
    demo = z.parse(bootstrapSchema, JSON.parse(readFileSync(file, 'utf8'))).demo_tenant;
  } catch {
    if (!env.WALLET_API_KEY) throw new PlatformStateError(`no demo tenant in ${file}: start the platform once with npm start (or set WALLET_API_KEY)`);
  }
  return { apiKey: env.WALLET_API_KEY ?? demo!.api_key, currency: env.WALLET_CURRENCY ?? demo?.currency ?? 'USD', tenantId: demo?.id ?? '' };
}
