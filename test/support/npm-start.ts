import { spawn, spawnSync, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * `npm start` as a developer runs it, in a child process: the bundle scripts/run.mjs compiles
 * once, a data folder of the test's, every port free (0), LOG_LEVEL unset as in a shell.
 */

export const ROOT = resolve(import.meta.dirname, '..', '..');

export interface StartedPlatform {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  urls: { public: string; ledger: string; console: string };
  /** Ctrl-C, resolving to the exit code. */
  stop: () => Promise<number | null>;
}

export const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((done) => (child.exitCode !== null || child.signalCode !== null ? done(child.exitCode) : child.once('exit', (code) => done(code))));

/** A child process (in the repository unless `cwd` says otherwise) whose stdout and stderr are collected together, as they came. */
export function spawnCollecting(command: string, args: string[], options: SpawnOptionsWithoutStdio = {}): { child: ChildProcessWithoutNullStreams; output: () => string } {
  const child = spawn(command, args, { cwd: ROOT, ...options });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Waits until a starting platform's output says it is up (`Try: curl`); throws with the output when it exits first or the time runs out. */
export async function untilStarted(started: { child: ChildProcessWithoutNullStreams; output: () => string }, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!started.output().includes('Try: curl')) {
    if (Date.now() > deadline || started.child.exitCode !== null) throw new Error(`did not start: ${started.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The processes whose command line names `dir`: a DynamoDB Local JVM still holding a data folder. */
export const javaProcessesUsing = (dir: string): string[] => spawnSync('pgrep', ['-f', dir], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);

export async function startNpmStart(dataDir: string, env: Record<string, string> = {}): Promise<StartedPlatform> {
  const { LOG_LEVEL: _unset, ...inherited } = process.env;
  const started = spawnCollecting(process.execPath, ['scripts/run.mjs', 'local/main.ts'], {
    env: { ...inherited, DATA_DIR: dataDir, PORT: '0', LEDGER_PORT: '0', CONSOLE_PORT: '0', OIDC_PORT: '0', ...env },
  });
  const { child } = started;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    return exited(child);
  };
  try {
    await untilStarted(started);
  } catch (error) {
    await stop();
    throw new Error(`npm start ${(error as Error).message}`);
  }
  const state = JSON.parse(readFileSync(join(dataDir, 'platform.json'), 'utf8')) as { urls: StartedPlatform['urls'] };
  return { child, output: started.output, urls: state.urls, stop };
}
