import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type middy from '@middy/core';
import { logger } from './logger';
import { metrics } from './metrics';
import { captureLambdaHandler } from './tracer';

/**
 * The Powertools middlewares every function uses, in Powertools' order: the tracer's handler segment,
 * the logger's Lambda context, then metrics (flushed after the handler, with a cold-start metric).
 * `middy().use(observability())` takes the list as one step.
 */
export function observability(): middy.MiddlewareObj[] {
  return [
    captureLambdaHandler(),
    injectLambdaContext(logger, { resetKeys: true }),
    logMetrics(metrics, { captureColdStartMetric: true }),
  ] as middy.MiddlewareObj[];
}
