import { config } from './config';
import { mappedStack } from './stack';

/**
 * Structured JSON logs, one line per entry on stdout (CloudWatch Logs in AWS): level, message,
 * timestamp, service, stage, version, the keys the HTTP middleware appends per invocation (request
 * id, principal kind), and the entry's own details. Errors are written as name, message and stack,
 * the stack of a bundled function mapped to its TypeScript (./stack.ts).
 * Built on first use, like the configuration it reads. (It replaced Powertools' Logger, of which
 * the platform used these few methods: a fifth of every small function's bundle; docs/performance.md.)
 */

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
const RANK: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 100 };

export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
  /** Keys every later entry carries, until `resetKeys`. */
  appendKeys(keys: Record<string, unknown>): void;
  resetKeys(): void;
}

/** Errors as plain fields (JSON.stringify writes an Error as `{}`). */
function plain(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: mappedStack(value.stack), ...(value.cause === undefined ? {} : { cause: plain(value.cause) }) };
  return value;
}

export function createLogger(options: { level: LogLevel; persistent: Record<string, unknown>; write?: (line: string) => void }): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  let keys: Record<string, unknown> = {};
  const log = (level: LogLevel, message: string, details: Record<string, unknown> = {}) => {
    if (RANK[level] < RANK[options.level]) return;
    const fields = Object.fromEntries(Object.entries(details).map(([name, value]) => [name, plain(value)]));
    write(`${JSON.stringify({ level, message, timestamp: new Date().toISOString(), ...options.persistent, ...keys, ...fields })}\n`);
  };
  return {
    debug: (message, details) => log('DEBUG', message, details),
    info: (message, details) => log('INFO', message, details),
    warn: (message, details) => log('WARN', message, details),
    error: (message, details) => log('ERROR', message, details),
    appendKeys: (more) => {
      keys = { ...keys, ...more };
    },
    resetKeys: () => {
      keys = {};
    },
  };
}

let instance: Logger | undefined;

const current = (): Logger =>
  (instance ??= createLogger({ level: config.LOG_LEVEL, persistent: { service: 'wallet-platform', stage: config.STAGE, version: config.PLATFORM_VERSION } }));

/** The process's logger, built on first use. */
export const logger: Logger = {
  debug: (message, details) => current().debug(message, details),
  info: (message, details) => current().info(message, details),
  warn: (message, details) => current().warn(message, details),
  error: (message, details) => current().error(message, details),
  appendKeys: (keys) => current().appendKeys(keys),
  resetKeys: () => current().resetKeys(),
};
