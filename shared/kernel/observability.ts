import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import { powertoolsLogger } from './log';
import { metricsEnabled, powertoolsMetrics } from './metrics';
import { withInvocationDeadline } from './retry';

/**
 * Powertools' own middy middlewares, on every function (HTTP routes through shared/http/handler.ts,
 * workers through `observed` below): `injectLambdaContext` puts the Lambda context on every log
 * line, refreshes the sampling decision per invocation and clears the keys the invocation appended
 * when it ends; `logMetrics` writes the `ColdStart` metric and flushes anything buffered. Both are
 * built on the first invocation, not at import: the logger and metrics read the configuration,
 * which the embedded platform sets before any handler runs.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Powertools' middlewares take any event and result.
type AnyMiddleware = middy.MiddlewareObj<any, any, Error, Context, any>;

let built: AnyMiddleware[] | undefined;

function middlewares(): AnyMiddleware[] {
  return (built ??= [
    injectLambdaContext(powertoolsLogger(), { resetKeys: true }) as AnyMiddleware,
    ...(metricsEnabled() ? [logMetrics(powertoolsMetrics(), { captureColdStartMetric: true }) as AnyMiddleware] : []),
  ]);
}

type Phase = 'before' | 'after' | 'onError';

/** Powertools' middlewares as one middy middleware: before in order, after and onError in reverse. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the middy internal store of the handler it joins.
export function observability<E, R, I extends Record<string, unknown> = any>(): middy.MiddlewareObj<E, R, Error, Context, I> {
  const each = async (phase: Phase, request: middy.Request<E, R, Error, Context, I>) => {
    const list = phase === 'before' ? middlewares() : [...middlewares()].reverse();
    for (const middleware of list) await middleware[phase]?.(request as middy.Request);
  };
  return {
    before: (request) => each('before', request),
    after: (request) => each('after', request),
    onError: (request) => each('onError', request),
  };
}

/**
 * A worker (queue, stream, schedule) as a middy handler with Powertools' middlewares, its retries
 * bounded by the invocation's deadline (./retry.ts).
 */
export function observed<E, R>(handler: (event: E, context: Context) => Promise<R>): middy.MiddyfiedHandler<E, R, Error, Context> {
  return middy<E, R, Error, Context>((event: E, context: Context) => withInvocationDeadline(context, () => handler(event, context))).use(observability<E, R>());
}
