import type { Context } from 'aws-lambda';
import { uuidv7 } from '../../shared/kernel/ids';
import { embeddedTimeoutScale } from '../../shared/kernel/retry';

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
