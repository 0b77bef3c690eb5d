import { parseArgs } from 'node:util';
import { createWalletClient } from '../client/wallet';
import { ApiError } from '../client/core';
import { PlatformStateError, readLocalCredentials, readPlatformState } from './platform-state';
import { TriggerRefusal } from './trigger/fixtures';
import { TRIGGERABLE_TYPES, triggerEvent } from './trigger/run';
import { runCli, UsageError } from './cli';

/**
 * `npm run trigger -- <event type>`, like `stripe trigger`: creates what one event of that type
 * needs in the running embedded platform (found through .data/platform.json), with the demo
 * tenant's sandbox key (.data/bootstrap.json), and waits until the event is in the tenant's event
 * history. Every endpoint subscribed to it receives it (`npm run webhooks:listen` shows it).
 */

const USAGE = `usage: npm run trigger -- <event type>
Fires one event of that type in the running platform (npm start), with the demo tenant's sandbox key
(WALLET_API_KEY overrides it); the objects it needs are created fresh, named trigger-….
Event types: ${TRIGGERABLE_TYPES.join(', ')}`;

async function main(argv: string[]): Promise<string> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) return USAGE;
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'name one event type' : `one event type at a time, not ${positionals.length}`);
  const state = readPlatformState();
  const credentials = readLocalCredentials();
  const wallet = createWalletClient({ baseUrl: state.urls.public, credential: credentials.apiKey });
  const type = positionals[0]!;
  const say = (line: string) => process.stderr.write(`  ${line}\n`);
  say(`setting up ${type} at ${state.urls.public}...`);
  const event = await triggerEvent({ wallet, currency: credentials.currency, say }, type);
  return `Trigger succeeded: ${event.type} ${event.id}`;
}

await runCli(() => main(process.argv.slice(2)), {
  hint: '--help lists the event types',
  describe: (error) => {
    const message = error instanceof Error ? error.message : String(error);
    return error instanceof TriggerRefusal || error instanceof PlatformStateError || error instanceof ApiError ? message : `the trigger failed: ${message}`;
  },
});
