import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import { logger, powertoolsLogger } from './log';
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
 * bounded by the invocation's deadline (./retry.ts). A run that fails is logged as `worker failed`
 * (ERROR, with the error and the invocation's context) before Lambda records the error: a
 * scheduled worker's errors raise an alarm (lib/workers.ts, docs/runbook.md) and this line says why.
 */
export function observed<E, R>(handler: (event: E, context: Context) => Promise<R>): middy.MiddyfiedHandler<E, R, Error, Context> {
  const run = async (event: E, context: Context): Promise<R> => {
    try {
      return await withInvocationDeadline(context, () => handler(event, context));
    } catch (error) {
      logger.error('worker failed', { error: error as Error });
      throw error;
    }
  };
  return middy<E, R, Error, Context>(run).use(observability<E, R>());
}
