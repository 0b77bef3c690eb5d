import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as z from '../shared/kernel/zod';
import { bootstrapFileOf, dataDirFromEnv } from '../local/data-dir';
import { runCli, UsageError } from './cli';
import { PlatformStateError, readPlatformState } from './platform-state';

/**
 * `eval "$(npm run --silent dev:env)"`: the running embedded platform's addresses and the first
 * start's credentials as shell variables, so the README's and docs' examples name them
 * ($WALLET_URL, $API_KEY, ...) instead of ports and keys that differ between machines and runs.
 * Read from <DATA_DIR or .data>/platform.json and bootstrap.json; prints `export` lines only.
 */

const USAGE = `usage: eval "$(npm run --silent dev:env)"
Prints export lines for the running platform (npm start) in DATA_DIR (default .data):
  WALLET_URL, LEDGER_URL, CONSOLE_URL   the three APIs
  API_KEY                               the demo tenant's sandbox API key (every tenant scope)
  DEMO_TENANT_ID                        the demo tenant
  STAFF_EMAIL, STAFF_PASSWORD           the platform operator (staff sessions: tenants, API keys)
  PARTNER_ADMIN_EMAIL, PARTNER_ADMIN_PASSWORD   the demo tenant's partner administrator (console API)`;

const bootstrapSchema = z.object({
  platform_staff: z.object({ email: z.string(), password: z.string() }),
  demo_tenant: z.object({ id: z.string(), api_key: z.string() }),
  partner_admin: z.object({ email: z.string(), password: z.string() }),
});

/** A POSIX shell word for any value: single quotes, each ' as '\''. */
const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

async function main(argv: string[]): Promise<string> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) return USAGE;
  if (positionals.length > 0) throw new UsageError(`no arguments expected, got ${positionals.join(' ')}`);
  const state = readPlatformState();
  const file = bootstrapFileOf(dataDirFromEnv());
  let seeded: z.infer<typeof bootstrapSchema>;
  try {
    seeded = z.parse(bootstrapSchema, JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    throw new PlatformStateError(`${file} does not hold the first start's credentials; restart the platform with npm start`);
  }
  const variables: [string, string][] = [
    ['WALLET_URL', state.urls.public],
    ['LEDGER_URL', state.urls.ledger],
    ['CONSOLE_URL', state.urls.console],
    ['API_KEY', seeded.demo_tenant.api_key],
    ['DEMO_TENANT_ID', seeded.demo_tenant.id],
    ['STAFF_EMAIL', seeded.platform_staff.email],
    ['STAFF_PASSWORD', seeded.platform_staff.password],
    ['PARTNER_ADMIN_EMAIL', seeded.partner_admin.email],
    ['PARTNER_ADMIN_PASSWORD', seeded.partner_admin.password],
  ];
  return variables.map(([name, value]) => `export ${name}=${quoted(value)}`).join('\n');
}

await runCli(() => main(process.argv.slice(2)), { hint: 'npm run dev:env -- --help shows what it prints' });
