import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config';

let instance: Logger | undefined;

const create = () =>
  new Logger({
    serviceName: 'wallet-platform',
    logLevel: config.LOG_LEVEL,
    persistentKeys: { stage: config.STAGE, version: config.PLATFORM_VERSION },
  });

/**
 * Structured JSON logs; the request id is appended per invocation by the HTTP middleware. Built on
 * first use, like the configuration it reads.
 */
export const logger: Logger = new Proxy({} as Logger, {
  get: (_target, name) => {
    const target = (instance ??= create());
    const value = Reflect.get(target, name, target) as unknown;
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
});
