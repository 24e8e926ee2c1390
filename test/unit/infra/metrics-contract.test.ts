import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from '#commons/powertools/metrics';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../../shared/service-identity';

/** The alarms of lib/observability.ts watch the functions' own metrics by namespace and `service` dimension. */
test('the functions emit their metrics in the namespace and with the service dimension the alarms watch', () => {
  metrics.addMetric('OccupancyRefreshFailures', MetricUnit.Count, 2);
  const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
    _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][] }[] };
  };
  metrics.clearMetrics();
  expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: METRICS_NAMESPACE, Dimensions: [['service']] });
  expect(emf.service).toBe(SERVICE_NAME);
  expect(emf.OccupancyRefreshFailures).toBe(2);
});

/** The rejected-share alarms of lib/observability.ts watch the ingest metrics by `service` and `collection`. */
test('the ingest function emits its line counts with the service and collection dimensions the alarms watch', () => {
  metrics.addDimension('collection', 'movementEvents');
  metrics.addMetric('IngestRejected', MetricUnit.Count, 3);
  const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
    _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][] }[] };
  };
  metrics.clearMetrics();
  metrics.clearDimensions();
  expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
    Namespace: METRICS_NAMESPACE,
    Dimensions: [['service', 'collection']],
  });
  expect([emf.service, emf.collection, emf.IngestRejected]).toEqual([SERVICE_NAME, 'movementEvents', 3]);
});
