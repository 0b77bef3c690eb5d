import { parseArgs } from 'node:util';
import { isScope } from '../shared/wallet/auth/scopes';
import { isStaffRole, STAFF_ROLES } from '../shared/wallet/auth/staff-roles';
import { systemClock } from '../shared/kernel/clock';
import { AppError } from '../shared/kernel/errors';
import { uuidv7 } from '../shared/kernel/ids';
import { resolveTableTarget } from './platform-state';
import { runCli, UsageError } from './cli';

/**
 * The operator's command for staff accounts: created only by someone with database access, never
 * through the API. It writes straight to the WalletTable:
 *   - the running embedded platform's DynamoDB Local, found through .data/platform.json;
 *   - with WALLET_TABLE set, that table in AWS (standard AWS credentials and region;
 *     DYNAMODB_ENDPOINT, if set, overrides the endpoint).
 * Results are JSON on stdout (never the password or its hash); a failure is one `error: ...` line
 * on stderr and a non-zero exit.
 */

const USAGE = `usage: npm run staff -- <command>
  create --email <email> --password <password> --role <role> [--tenant <tenant id>] [--name <name>]
         [--scopes <scope,scope,...>]
         role: ${STAFF_ROLES.join(' | ')}; --tenant is required for tenant_staff and partner_admin
         --scopes: what the account holds instead of the role's default (--scopes '' holds none).
           The default of tenant_staff is every tenant scope, clients:manage included, and
           clients:manage is authority over every client: an account meant to act only on the
           clients whose organization it is a member of gets a narrower list, e.g.
           --role tenant_staff --scopes merchants:read,merchants:write,webhooks:read
  list   every staff account
Targets the running embedded platform; set WALLET_TABLE (with AWS credentials) for a table in AWS.
The password may also come from the STAFF_PASSWORD environment variable (keeps it out of shell history).`;

async function main(argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      tenant: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...extra] = positionals;
  if (values.help) return USAGE;
  if (!command) throw new UsageError('a command is needed');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);

  // Loaded once the arguments are read: --help and a usage error need neither the store nor the SDK.
  const { createStaff, listStaff } = await import('../shared/wallet/auth/staff');
  const { createDocumentClient } = await import('../shared/aws/dynamodb');
  let run: (deps: Parameters<typeof listStaff>[0]) => Promise<unknown>;
  switch (command) {
    case 'create': {
      const email = values.email;
      const password = values.password ?? process.env.STAFF_PASSWORD;
      const role = values.role;
      if (!email) throw new UsageError('create needs --email');
      if (!password) throw new UsageError('create needs --password (or STAFF_PASSWORD)');
      if (!isStaffRole(role)) throw new UsageError(`create needs --role, one of ${STAFF_ROLES.join(', ')}`);
      const scopes = values.scopes === undefined ? undefined : scopeList(values.scopes);
      run = (deps) => createStaff(deps, { email, password, role, tenantId: values.tenant, name: values.name, scopes });
      break;
    }
    case 'list':
      run = (deps) => listStaff(deps);
      break;
    default:
      throw new UsageError(`unknown command ${command}`);
  }

  const target = resolveTableTarget('WALLET_TABLE', 'wallet');
  process.stderr.write(`wallet table ${target.tableName} (${target.where})\n`);
  const client = createDocumentClient(target.clientOptions);
  return run({ client, table: target.tableName, clock: systemClock, ids: uuidv7 });
}

/** `a,b c` to the scopes named, each checked against the platform's scope names. */
function scopeList(value: string): string[] {
  const scopes = value.split(/[\s,]+/).filter(Boolean);
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw new UsageError(`--scopes names no such scope: ${unknown.join(', ')}`);
  return scopes;
}

await runCli(() => main(process.argv.slice(2)), {
  hint: '--help shows the commands',
  describe: (error) => (error instanceof AppError && error.errors?.length ? error.errors.map((e) => `${e.field}: ${e.message}`).join('; ') : error instanceof Error ? error.message : String(error)).split('\n')[0]!,
});
