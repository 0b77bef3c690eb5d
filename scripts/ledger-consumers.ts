import { parseArgs } from 'node:util';
import { systemClock } from '../shared/kernel/clock';
import { uuidv7 } from '../shared/kernel/ids';
import type { Consumer, ConsumerStore } from '../shared/ledger/consumers';
import { resolveTableTarget } from './platform-state';
import { runCli, UsageError } from './cli';

/**
 * The operator's command for ledger consumers (spec part 1: created only by someone with database
 * access, never through the API). It writes straight to the LedgerTable:
 *   - the running embedded platform's DynamoDB Local, found through .data/platform.json;
 *   - with LEDGER_TABLE set, that table in AWS (standard AWS credentials and region;
 *     DYNAMODB_ENDPOINT, if set, overrides the endpoint).
 * Results are JSON on stdout; a failure is one `error: ...` line on stderr and a non-zero exit.
 */

const USAGE = `usage: npm run ledger:consumers -- <command>
  create --name <name> --sub <sub>    create a consumer (fails if the name or sub is taken)
  ensure --name <name> --sub <sub>    create it unless exactly this pairing exists
  list                                list every consumer
  block-feed --name <name>            refuse the consumer's event feed reads
  unblock-feed --name <name>          allow them again
Targets the running embedded platform; set LEDGER_TABLE (with AWS credentials) for a table in AWS.`;

async function main(argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, sub: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, ...extra] = positionals;
  if (values.help) return USAGE;
  if (!command) throw new UsageError('a command is needed');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
  const need = (option: 'name' | 'sub'): string => {
    const value = values[option];
    if (value === undefined) throw new UsageError(`${command} needs --${option}`);
    return value;
  };

  // Every argument is checked before anything is touched.
  let run: (store: ConsumerStore) => Promise<unknown>;
  switch (command) {
    case 'create': {
      const input = { name: need('name'), sub: need('sub') };
      run = async (store) => toJson(await store.createConsumer(input));
      break;
    }
    case 'ensure': {
      const input = { name: need('name'), sub: need('sub') };
      run = async (store) => {
        const { consumer, created } = await store.ensureConsumer(input);
        return { created, consumer: toJson(consumer) };
      };
      break;
    }
    case 'list':
      run = async (store) => (await store.listConsumers()).map(toJson);
      break;
    case 'block-feed':
    case 'unblock-feed': {
      const name = need('name');
      run = async (store) => toJson(await store.setFeedBlocked(name, command === 'block-feed'));
      break;
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }

  const target = resolveTableTarget('LEDGER_TABLE', 'ledger');
  process.stderr.write(`ledger table ${target.tableName} (${target.where})\n`);
  // Loaded only now: --help and a usage error need neither the store nor the AWS SDK.
  const { createDocumentClient } = await import('../shared/aws/dynamodb');
  const { createConsumerStore } = await import('../shared/ledger/consumers');
  const client = createDocumentClient(target.clientOptions);
  return run(createConsumerStore(client, target.tableName, systemClock, uuidv7));
}


/** The stored field names, as the ledger reads them. */
function toJson(consumer: Consumer) {
  return { id: consumer.id, name: consumer.name, sub: consumer.sub, feed_blocked: consumer.feedBlocked, created_at: consumer.createdAt };
}

await runCli(() => main(process.argv.slice(2)), { hint: '--help shows the commands' });
