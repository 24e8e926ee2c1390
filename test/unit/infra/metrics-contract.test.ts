import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from '#commons/powertools/metrics';
import { DEFAULT_METRICS_NAMESPACE, DEFAULT_SERVICE_NAME } from '../../../lib/service-function';

/** The alarms of lib/observability.ts watch the functions' own metrics by namespace and `service` dimension. */
test('the functions emit their metrics in the namespace and with the service dimension the alarms watch', () => {
  metrics.addMetric('OccupancyRefreshFailures', MetricUnit.Count, 2);
  const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][] }[] } };
  metrics.clearMetrics();
  expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: DEFAULT_METRICS_NAMESPACE, Dimensions: [['service']] });
  expect(emf.service).toBe(DEFAULT_SERVICE_NAME);
  expect(emf.OccupancyRefreshFailures).toBe(2);
});
