import { LogFormatter, LogItem, Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { config } from './config';
import { mappedStack } from './stack';

/**
 * Structured JSON logs through Powertools for AWS Lambda's Logger, one line per entry on stdout
 * (CloudWatch Logs in AWS): level, message, timestamp, service, the Lambda context once
 * `injectLambdaContext` ran (function name, request id, cold start, X-Ray trace id), stage and
 * version, the correlation keys the HTTP middleware appends per invocation (`request_id`,
 * `apigw_request_id`, `idempotency_key`, `tenant_id`, `route`, `principal_kind`), and the entry's
 * own details. Level from LOG_LEVEL (case-insensitive, SILENT writes nothing), sampling from
 * POWERTOOLS_LOGGER_SAMPLE_RATE (a share of invocations logged at DEBUG), both set by the stack.
 * Errors are written as name, location, message and stack, the stack of a bundled function mapped
 * to its TypeScript (./stack.ts). Built on first use, like the configuration it reads.
 */

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

/** The calls the platform makes; Powertools' Logger is one. */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
  /** Keys every later entry carries, until `resetKeys` (injectLambdaContext resets them after each invocation). */
  appendKeys(keys: Record<string, unknown>): void;
  resetKeys(): void;
}

/** Powertools' field layout, with a logged error's stack mapped to the TypeScript it came from. */
class PlatformLogFormatter extends LogFormatter {
  public formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        cold_start: attributes.lambdaContext?.coldStart,
        function_name: attributes.lambdaContext?.functionName,
        function_request_id: attributes.lambdaContext?.awsRequestId,
        sampling_rate: attributes.sampleRateValue,
        xray_trace_id: attributes.xRayTraceId,
      },
    }).addAttributes(additional);
  }

  public override formatError(error: Error): LogAttributes {
    const formatted = super.formatError(error);
    const stack = mappedStack(error.stack);
    return { ...formatted, location: this.getCodeLocation(stack), stack };
  }
}

export const SERVICE_NAME = 'wallet-platform';

export function createLogger(options: { level: LogLevel; persistent: Record<string, unknown> }): PowertoolsLogger {
  return new PowertoolsLogger({
    serviceName: SERVICE_NAME,
    logLevel: options.level,
    logFormatter: new PlatformLogFormatter(),
    persistentKeys: options.persistent,
  });
}

let instance: PowertoolsLogger | undefined;

/** The process's Powertools Logger, built on first use (what `injectLambdaContext` is given). */
export const powertoolsLogger = (): PowertoolsLogger =>
  (instance ??= createLogger({ level: config.LOG_LEVEL, persistent: { stage: config.STAGE, version: config.PLATFORM_VERSION } }));

/** The process's logger, built on first use. */
export const logger: Logger = {
  debug: (message, details) => powertoolsLogger().debug(message, details ?? {}),
  info: (message, details) => powertoolsLogger().info(message, details ?? {}),
  warn: (message, details) => powertoolsLogger().warn(message, details ?? {}),
  error: (message, details) => powertoolsLogger().error(message, details ?? {}),
  appendKeys: (keys) => powertoolsLogger().appendKeys(keys),
  resetKeys: () => powertoolsLogger().resetKeys(),
};
