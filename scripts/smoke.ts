import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ApiError, ok } from '../client/core';
import { createWalletClient } from '../client/wallet';
import { runCli, UsageError } from './cli';

/**
 * `npm run smoke -- --stage <name>` (or `--url <public API URL>`): checks that a deployed stage
 * works end to end, as a client would, with a SANDBOX API key of a tenant (`--api-key` or
 * SMOKE_API_KEY; a live key is refused before anything is sent): /healthz answers, a user token is
 * minted and used, and money moves. Two users named smoke-<time>-…, a credit line on the business
 * one (no processor is needed: AWS stages have no sandbox processor), a transfer made with that
 * user's token, the receiver's balance read back, the tenant's ledger netting to zero. Every step
 * prints one line; the first failure ends it (exit 1). It adds two users and one transfer to the
 * tenant each run, nothing else.
 *
 * `--stage` reads the PublicApiUrl output of the CloudFormation stack wallet-platform-<stage>-wallet
 * (the standard AWS credential chain and region; `--region` overrides it). The test suite runs it
 * against the embedded platform with `--url` (test/api/smoke.test.ts); nothing here is AWS-only
 * but that lookup.
 */

const USAGE = `usage: npm run smoke -- (--stage <name> [--region <region>] | --url <public API URL>) [--api-key <sandbox key>]
Checks a running stage: GET /healthz, a user token minted and used, money moved in a sandbox tenant.
  --stage     reads PublicApiUrl from the stack wallet-platform-<stage>-wallet (AWS credentials and region)
  --url       the public (wallet) API's base URL instead, e.g. http://127.0.0.1:3000 for npm start
  --api-key   a sandbox API key of the tenant to use (default: SMOKE_API_KEY); it needs users:read,
              users:write, credit:write, balances:read, transfers:write and ledger:read (a key made
              with every tenant scope has them); live keys are refused`;

/** The CloudFormation output holding the public API's base URL (lib/wallet-stack.ts). */
export const PUBLIC_API_OUTPUT = 'PublicApiUrl';
export const walletStackName = (stage: string) => `wallet-platform-${stage}-wallet`;

/** The stage's public API URL from its stack's outputs. */
export async function publicApiUrlOfStage(stage: string, region: string | undefined): Promise<string> {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const client = new CloudFormationClient(region ? { region } : {});
  try {
    const stackName = walletStackName(stage);
    const answer = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const url = answer.Stacks?.[0]?.Outputs?.find((output) => output.OutputKey === PUBLIC_API_OUTPUT)?.OutputValue;
    if (!url) throw new Error(`the stack ${stackName} has no ${PUBLIC_API_OUTPUT} output (is it deployed?)`);
    return url.replace(/\/$/, '');
  } finally {
    client.destroy();
  }
}

type Say = (line: string) => void;

/** The checks, against a base URL; resolves to a summary line, throws at the first failure. */
export async function smoke(baseUrl: string, apiKey: string, say: Say): Promise<string> {
  if (!apiKey.startsWith('sk_sandbox_')) throw new UsageError('the smoke test moves money: give it a sandbox API key (sk_sandbox_…), never a live one');
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      const detail = error instanceof ApiError ? `${error.status} ${error.code}: ${error.message}` : (error as Error).message;
      throw new Error(`${name}: ${detail}`);
    }
  };

  const health = await step('GET /healthz', async () => {
    const response = await fetch(`${baseUrl}/healthz`);
    const body = (await response.json().catch(() => undefined)) as { status?: string } | undefined;
    if (response.status !== 200 || body?.status !== 'ok') throw new Error(`answered ${response.status} ${JSON.stringify(body)}`);
    return body;
  });
  say(`ok  GET /healthz: ${JSON.stringify(health)}`);

  const wallet = createWalletClient({ baseUrl, credential: apiKey });
  const run = `smoke-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${randomUUID().slice(0, 8)}`;
  const payer = await step('create the paying user', () => ok(wallet.POST('/v1/users', { body: { external_id: `${run}-payer`, kind: 'business' } })));
  const payee = await step('create the receiving user', () => ok(wallet.POST('/v1/users', { body: { external_id: `${run}-payee` } })));
  say(`ok  users ${payer.external_id} (business) and ${payee.external_id}`);
  const amount = 100;
  // Enough for the amount and any p2p fee the tenant's plan charges on top (at most MAX fee 100 %).
  await step('set a credit line', () => ok(wallet.POST('/v1/users/{userId}/credit_limit', { params: { path: { userId: payer.id } }, body: { credit_limit: amount * 10 } })));
  say(`ok  credit line of ${amount * 10} for ${payer.external_id}`);

  const minted = await step('mint a user token', () =>
    ok(wallet.POST('/v1/auth/user_tokens', { body: { user_external_id: payer.external_id, scopes: ['balances:read', 'transfers:write'] } })),
  );
  say(`ok  user token for ${payer.external_id}, expires ${minted.expires_at}`);
  const asPayer = createWalletClient({ baseUrl, credential: minted.token });
  const transfer = await step('transfer with the user token', () =>
    ok(asPayer.POST('/v1/transfers', { body: { from_user_id: payer.id, to_user_id: payee.id, amount }, headers: { 'idempotency-key': `${run}-transfer` } })),
  );
  if (transfer.status !== 'completed') throw new Error(`transfer: status ${transfer.status}, expected completed`);
  say(`ok  transfer ${transfer.id}: ${transfer.amount} ${transfer.currency}, fee ${transfer.fee}`);

  const balances = await step("read the receiver's balance", () => ok(wallet.GET('/v1/users/{userId}/balances', { params: { path: { userId: payee.id } } })));
  if (balances.available !== amount) throw new Error(`balance of ${payee.external_id}: available ${balances.available}, expected ${amount}`);
  say(`ok  ${payee.external_id} holds ${balances.available} ${balances.currency}`);

  const summary = await step('read the ledger summary', () => ok(wallet.GET('/v1/ledger/summary')));
  const totals = new Map<string, number>();
  for (const row of summary.rows) totals.set(row.commodity, (totals.get(row.commodity) ?? 0) + row.balance);
  const unbalanced = [...totals].filter(([, total]) => total !== 0);
  if (unbalanced.length > 0) throw new Error(`the ledger does not net to zero: ${unbalanced.map(([commodity, total]) => `${commodity} ${total}`).join(', ')}`);
  say(`ok  the tenant's ledger nets to zero in ${[...totals.keys()].join(', ')}`);
  return `smoke test passed against ${baseUrl}`;
}

async function main(argv: string[]): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' }, stage: { type: 'string' }, region: { type: 'string' }, url: { type: 'string' }, 'api-key': { type: 'string' } },
  });
  if (values.help) return USAGE;
  if (positionals.length > 0) throw new UsageError(`unexpected ${positionals.join(' ')}`);
  if ((values.stage === undefined) === (values.url === undefined)) throw new UsageError('give --stage <name> or --url <public API URL>, one of them');
  if (values.stage !== undefined && !/^[a-z][a-z0-9]{0,15}$/.test(values.stage)) throw new UsageError(`--stage ${values.stage}: lowercase letters and digits, as bin/wallet.ts takes it`);
  const apiKey = values['api-key'] ?? process.env.SMOKE_API_KEY;
  if (!apiKey) throw new UsageError('give a sandbox API key with --api-key or SMOKE_API_KEY');
  let baseUrl: string;
  if (values.url !== undefined) {
    if (!URL.canParse(values.url)) throw new UsageError(`--url ${values.url} is not a URL`);
    baseUrl = values.url.replace(/\/$/, '');
  } else {
    baseUrl = await publicApiUrlOfStage(values.stage!, values.region);
  }
  const say: Say = (line) => process.stderr.write(`${line}\n`);
  say(`smoke test of ${baseUrl}`);
  return smoke(baseUrl, apiKey, say);
}

if (process.argv[1]?.endsWith('smoke.ts')) await runCli(() => main(process.argv.slice(2)), { hint: 'npm run smoke -- --help shows the options' });
