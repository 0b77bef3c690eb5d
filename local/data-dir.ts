import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LocalStartError } from './errors';

/**
 * One embedded platform per data folder. DynamoDB Local keeps its data in <data>/dynamodb, and two
 * JVMs on one folder corrupt each other's view of it; the CLIs find "the" platform through
 * <data>/platform.json. So `npm start` takes <data>/platform.lock (created exclusively, holding its
 * pid) before anything else, refuses while a living process holds it, takes over a lock whose
 * process is gone, and on its way out deletes only the files that are its own.
 */

/** DATA_DIR, or .data at the repository root. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  // An empty DATA_DIR (a variable set to nothing) is the default, never the working directory.
  return resolve(env.DATA_DIR || resolve(import.meta.dirname, '..', '.data'));
}

const lockFileOf = (dataDir: string): string => join(dataDir, 'platform.lock');
export const stateFileOf = (dataDir: string): string => join(dataDir, 'platform.json');
/** The first start's credentials (local/seed.ts writes it). */
export const bootstrapFileOf = (dataDir: string): string => join(dataDir, 'bootstrap.json');

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = (JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The living process that holds the folder's lock, other than this one, with its public URL once it is up. */
export function runningPlatform(dataDir: string): { pid: number; url: string | undefined } | undefined {
  const pid = readPid(lockFileOf(dataDir));
  if (pid === undefined || pid === process.pid || !isAlive(pid)) return undefined;
  let url: string | undefined;
  try {
    const state = JSON.parse(readFileSync(stateFileOf(dataDir), 'utf8')) as { pid?: number; urls?: { public?: string } };
    if (state.pid === pid) url = state.urls?.public;
  } catch {
    // Not up yet: no state file.
  }
  return { pid, url };
}

export function alreadyRunningMessage(dataDir: string, owner: { pid: number; url: string | undefined }): string {
  return `the platform is already running as pid ${owner.pid} at ${owner.url ?? '(still starting)'} on ${dataDir}; stop it or set DATA_DIR to another folder`;
}

/**
 * Takes the data folder for this process. Refuses (LocalStartError, one line) while another living
 * process holds it; a lock left by a process that is gone is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const file = lockFileOf(dataDir);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = runningPlatform(dataDir);
      if (owner) throw new LocalStartError(alreadyRunningMessage(dataDir, owner));
      // Stale (its process is gone) or unreadable: take it over, once; a racing start that wins
      // the second exclusive create is reported above on the next pass.
      rmSync(file, { force: true });
      continue;
    }
    writeSync(fd, `${JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() })}\n`);
    closeSync(fd);
    const release = () => {
      removeIfOwn(file);
      removeIfOwn(stateFileOf(dataDir));
      process.removeListener('exit', release);
    };
    // A crash or process.exit still gives the folder back.
    process.on('exit', release);
    return { release };
  }
  const owner = runningPlatform(dataDir);
  throw new LocalStartError(owner ? alreadyRunningMessage(dataDir, owner) : `could not take ${file}; is another platform starting on ${dataDir}?`);
}

/** Deletes a pid file only when it names this process: never another platform's. */
function removeIfOwn(file: string): void {
  if (readPid(file) === process.pid) rmSync(file, { force: true });
}
