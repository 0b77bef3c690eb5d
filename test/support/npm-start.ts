import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
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

export async function startNpmStart(dataDir: string, env: Record<string, string> = {}): Promise<StartedPlatform> {
  const { LOG_LEVEL: _unset, ...inherited } = process.env;
  const child = spawn(process.execPath, ['scripts/run.mjs', 'local/main.ts'], {
    cwd: ROOT,
    env: { ...inherited, DATA_DIR: dataDir, PORT: '0', LEDGER_PORT: '0', CONSOLE_PORT: '0', OIDC_PORT: '0', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    return exited(child);
  };
  const deadline = Date.now() + 180_000;
  while (!output.includes('Try: curl')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`npm start did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const state = JSON.parse(readFileSync(join(dataDir, 'platform.json'), 'utf8')) as { urls: StartedPlatform['urls'] };
  return { child, output: () => output, urls: state.urls, stop };
}
