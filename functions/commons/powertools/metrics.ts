import type { GenericLogger } from '@aws-lambda-powertools/commons/types';
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import type { ReportEngine } from '#shared/stores/store';
import { METRICS_NAMESPACE, SERVICE_NAME } from '#shared/service-identity';
import { logger } from './logger';

/**
 * Powertools' own warnings go through our logger (silent in tests, JSON in Lambda). The one about an
 * empty buffer is expected whenever an invocation records no application metric (a refused request,
 * an unsplit report without truncation), so it is demoted to debug; the others stay warnings.
 * (Passing a logger is Powertools' answer to that warning:
 * https://github.com/aws-powertools/powertools-lambda-typescript/issues/2036.)
 */
const metricsLogger: GenericLogger = {
  debug: (...content) => logger.debug(String(content[0]), ...content.slice(1)),
  info: (...content) => logger.info(String(content[0]), ...content.slice(1)),
  warn: (...content) =>
    String(content[0]).startsWith('No application metrics to publish')
      ? logger.debug(String(content[0]))
      : logger.warn(String(content[0]), ...content.slice(1)),
  error: (...content) => logger.error(String(content[0]), ...content.slice(1)),
};

/**
 * One Metrics instance per process (CloudWatch EMF on stdout, flushed by the `logMetrics` middleware
 * after every invocation). Disabled by POWERTOOLS_DEV=true or POWERTOOLS_METRICS_DISABLED=true.
 */
export const metrics = new Metrics({
  // The stack sets POWERTOOLS_METRICS_NAMESPACE to the same; locally it is not set.
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
  serviceName: SERVICE_NAME,
  logger: metricsLogger,
});

/**
 * The engine with the wall time of every run recorded as `ReportEngineLatency` (ms), failures
 * included (a timeout is the latency that matters most); an in-process split records one per slice.
 */
export function measuredEngine(engine: ReportEngine): ReportEngine {
  return {
    maxBuckets: engine.maxBuckets,
    async run(plan, scope, options) {
      const started = performance.now();
      try {
        return await engine.run(plan, scope, options);
      } finally {
        metrics.addMetric('ReportEngineLatency', MetricUnit.Milliseconds, performance.now() - started);
      }
    },
  };
}
