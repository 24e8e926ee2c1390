import type { Template } from 'aws-cdk-lib/assertions';
import { removeSynthOutputs, render, resourcesOf, synthService } from './synth';

afterAll(removeSynthOutputs);

describe('the operations dashboard', () => {
  let body: string;
  let name: unknown;
  beforeAll(() => {
    const { template }: { template: Template } = synthService();
    const dashboards = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const props = dashboards[0]!.Properties as { DashboardName: unknown; DashboardBody: unknown };
    name = props.DashboardName;
    body = render(props.DashboardBody);
  });

  it('is named after the stack', () => {
    expect(name).toBe('LocationReporting-dev-operations');
  });

  it.each([
    ['API latency p50 and p99', /"Latency".*"stat":"p50".*"stat":"p99"/],
    ['API 4xx and 5xx', /"4xx".*"5xx"/],
    [
      'latency, 4xx and 5xx by route from the access log',
      /pct\(latencyMs, 99\) as p99 by route.*status like \/\^4\/.*status like \/\^5\//,
    ],
    [
      'ingest accepted and rejected per collection',
      /"IngestAccepted","collection","movementEvents".*"IngestRejected","collection","parkingEvents"/,
    ],
    ['function errors and throttles', /"AWS\/Lambda","Errors".*"AWS\/Lambda","Throttles"/],
    ['split executions', /"ExecutionsStarted".*"ExecutionsFailed".*"ExecutionsTimedOut"/],
    [
      'domain health, JVM, CPU, free storage and searchable documents',
      /"ClusterStatus.red".*"JVMMemoryPressure".*"CPUUtilization".*"FreeStorageSpace".*"SearchableDocuments"/,
    ],
  ])('shows %s', (_, pattern) => {
    expect(body).toMatch(pattern);
  });
});
