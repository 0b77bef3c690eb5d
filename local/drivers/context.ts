import type { Context } from 'aws-lambda';
import { uuidv7 } from '../../shared/kernel/ids';

/**
 * How many times its configured timeout a function gets on the embedded platform
 * (`EMBEDDED_TIMEOUT_SCALE`, default 1): the test suite stretches it, since several platforms share
 * a busy 2-core machine there and a test's outcome must not depend on the machine's speed; the
 * deadline itself is tested with injected clocks (test/unit/retry.test.ts).
 */
export function embeddedTimeoutScale(): number {
  const scale = Number(process.env.EMBEDDED_TIMEOUT_SCALE ?? 1);
  return Number.isFinite(scale) && scale > 0 ? scale : 1;
}

/**
 * The Lambda context a locally invoked function receives: its remaining time counts down from the
 * function's configured timeout, the deadline of its retries (shared/kernel/retry.ts).
 */
export function workerContext(name: string, timeoutSeconds = 60, requestId = uuidv7(), memoryMb = 1024): Context {
  const deadline = Date.now() + timeoutSeconds * 1000 * embeddedTimeoutScale();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
