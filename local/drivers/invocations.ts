import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';

/**
 * Every function of the embedded platform runs in this one process, several invocations at once,
 * as on Lambda Managed Instances (many invocations per execution environment). There the runtime
 * sets AWS_LAMBDA_MAX_CONCURRENCY and runs each invocation inside the Lambda InvokeStore, an
 * AsyncLocalStorage; Powertools then keeps what it holds per invocation in that store (the
 * Logger's Lambda context, the keys an invocation appends, its log level and buffer), so a line
 * carries its own function name, request id and correlation keys. The local drivers do the same:
 * `installInvocationScopes` once when the platform starts, then each invocation inside
 * `inInvocation`. Without it the one shared Logger wore the context of whichever invocation began
 * last, and one invocation's end cleared the keys of another still running.
 */

/** The store the invocations run in, once installed. */
let store: InvokeStoreBase | undefined;

/** How many invocations the process may run at once, as the runtime announces it (it asks only that it be set). */
const EMBEDDED_MAX_CONCURRENCY = '1000';

/**
 * Installs the InvokeStore backed by AsyncLocalStorage (the multi-concurrency one) before any
 * invocation, then announces concurrency so Powertools uses it. An AWS SDK call made earlier in
 * the process creates a single-invocation store that cannot be replaced; invocations then share
 * one context, as before, and that is said once.
 */
export async function installInvocationScopes(warn: (message: string) => void = () => undefined): Promise<void> {
  if (store) return;
  const installed = await InvokeStore.getInstanceAsync(true);
  installed.run({}, () => undefined);
  if (installed.hasContext()) {
    warn('the Lambda InvokeStore was created without invocation scopes before the platform started: log lines of concurrent invocations may carry each other\'s context');
    return;
  }
  store = installed;
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= EMBEDDED_MAX_CONCURRENCY;
}

/** Runs one invocation in its own scope of the InvokeStore (what the Lambda runtime does per invocation). */
export function inInvocation<R>(context: Context, invoke: () => Promise<R>): Promise<R> {
  if (!store) return invoke();
  return store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, invoke);
}
