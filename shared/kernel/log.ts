import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config';

/** Structured JSON logs; the request id is appended per invocation by the HTTP middleware. */
export const logger = new Logger({
  serviceName: 'wallet-platform',
  logLevel: config.LOG_LEVEL,
  persistentKeys: { stage: config.STAGE, version: config.PLATFORM_VERSION },
});
