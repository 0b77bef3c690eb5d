/**
 * What every operator CLI under scripts/ shares: a usage error, and the way `main` ends. What it
 * returns is printed (a string as it is, anything else as JSON); a usage error (its own, or
 * node:util's parseArgs refusing an option) is one `error:` line with a hint and exit code 2;
 * any other failure one `error:` line and exit code 1.
 */

export class UsageError extends Error {}

const isUsageError = (error: unknown): boolean => error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS') === true;

export async function runCli(
  main: () => Promise<unknown>,
  options: {
    /** Where the options are explained, e.g. `--help shows the commands`. */
    hint: string;
    /** The message of a failure that is not a usage error; its first line by default. */
    describe?: (error: unknown) => string;
  },
): Promise<void> {
  try {
    const result = await main();
    if (result !== undefined) process.stdout.write(typeof result === 'string' ? `${result}\n` : `${JSON.stringify(result, null, 2)}\n`);
  } catch (error) {
    const usage = isUsageError(error);
    const message = error instanceof Error ? error.message : String(error);
    const described = usage ? message : (options.describe?.(error) ?? message.split('\n')[0]);
    process.stderr.write(`error: ${described}${usage ? ` (${options.hint})` : ''}\n`);
    process.exit(usage ? 2 : 1);
  }
}
