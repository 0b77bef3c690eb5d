import { existsSync, readdirSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { alreadyRunningMessage, dataDirFromEnv, runningPlatform } from '../local/data-dir';

/**
 * `npm run reset -- --yes`: wipes the embedded platform's data folder (DATA_DIR or .data): tables,
 * generated secrets, the seeded credentials. The next `npm start` seeds afresh. Refuses while a
 * platform runs on the folder, and without --yes says what it would delete.
 */

const USAGE = `usage: npm run reset -- --yes
Deletes the data folder (DATA_DIR, default .data) of a stopped embedded platform: DynamoDB Local's
data, generated secrets and keys, .data/bootstrap.json. The next npm start seeds a new demo tenant.`;

function main(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { yes: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const dataDir = dataDirFromEnv();
  if (!existsSync(dataDir) || readdirSync(dataDir).length === 0) {
    console.log(`${dataDir} is already empty.`);
    return 0;
  }
  const owner = runningPlatform(dataDir);
  if (owner) {
    console.error(`error: ${alreadyRunningMessage(dataDir, owner)}`);
    return 1;
  }
  if (!values.yes) {
    console.error(`error: this deletes ${dataDir} (${readdirSync(dataDir).join(', ')}); run npm run reset -- --yes`);
    return 2;
  }
  rmSync(dataDir, { recursive: true, force: true });
  console.log(`deleted ${dataDir}; the next npm start seeds afresh.`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`error: ${(error as Error).message} (--help shows the options)`);
  process.exitCode = 2;
}
