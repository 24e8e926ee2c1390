import { Duration, Stack } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  LogQueryVisualizationType,
  LogQueryWidget,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../shared/service-identity';

export interface OperationsDashboardProps {
  readonly api: IHttpApi;
  /** The API's JSON access logs (fields `route`, `status`, `latencyMs`): the per-route widgets query them. */
  readonly accessLogs: ILogGroup;
  /** Every function whose errors and throttles to show, by a readable name. */
  readonly functions: Readonly<Record<string, IFunction>>;
  readonly splitStateMachine: IStateMachine;
  readonly domain: IDomain;
  /** The collections of the ingest function's IngestAccepted/IngestDuplicates/IngestRejected metrics. */
  readonly ingestCollections: readonly string[];
}

const WIDE = 24;
const THIRD = 8;
const HEIGHT = 6;

/**
 * One CloudWatch dashboard, `<stack>-operations`, for the questions of docs/runbooks.md: is the API
 * answering (p50/p99 and 4xx/5xx overall and by route), is data coming in (ingest lines), are the
 * functions and split executions failing, and is the domain healthy (status, JVM, CPU, storage,
 * documents). HTTP APIs publish per-route metrics only with detailed metrics (billed per metric), so
 * the per-route widgets query the access log instead.
 */
export class OperationsDashboard extends Construct {
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const period = Duration.minutes(5);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      defaultInterval: Duration.hours(24),
    });
    const graph = (title: string, left: IMetric[], width = THIRD, right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width, height: HEIGHT, period });
    const logs = (title: string, query: string, view = LogQueryVisualizationType.TABLE) =>
      new LogQueryWidget({
        title,
        logGroupNames: [props.accessLogs.logGroupName],
        queryString: query,
        view,
        width: THIRD,
        height: HEIGHT,
      });
    const rows: IWidget[][] = [
      [
        new TextWidget({
          markdown: `**${SERVICE_NAME}** — what each alarm means and what to do: docs/runbooks.md; upgrades, backups, cost: docs/operations.md`,
          width: WIDE,
          height: 1,
        }),
      ],
      [
        graph('API latency p50 / p99 (ms)', [
          props.api.metricLatency({ statistic: 'p50', label: 'p50' }),
          props.api.metricLatency({ statistic: 'p99', label: 'p99' }),
        ]),
        graph('API requests, 4xx, 5xx', [props.api.metricCount({ statistic: 'Sum', label: 'requests' })], THIRD, [
          props.api.metricClientError({ statistic: 'Sum', label: '4xx' }),
          props.api.metricServerError({ statistic: 'Sum', label: '5xx' }),
        ]),
        logs(
          'Latency by route (ms)',
          'stats count(*) as requests, pct(latencyMs, 50) as p50, pct(latencyMs, 99) as p99 by route | sort requests desc',
        ),
      ],
      [
        logs(
          '4xx by route',
          'filter status like /^4/ | stats count(*) as answers by route, status | sort answers desc',
        ),
        logs(
          '5xx by route',
          'filter status like /^5/ | stats count(*) as answers by route, status | sort answers desc',
        ),
        graph('Ingest lines', this.ingestMetrics(props.ingestCollections)),
      ],
      [
        graph(
          'Function errors',
          Object.entries(props.functions).map(([name, fn]) => fn.metricErrors({ statistic: 'Sum', label: name })),
        ),
        graph(
          'Function throttles',
          Object.entries(props.functions).map(([name, fn]) => fn.metricThrottles({ statistic: 'Sum', label: name })),
        ),
        graph('Split executions', [
          props.splitStateMachine.metricStarted({ statistic: 'Sum', label: 'started' }),
          props.splitStateMachine.metricSucceeded({ statistic: 'Sum', label: 'succeeded' }),
          props.splitStateMachine.metricFailed({ statistic: 'Sum', label: 'failed' }),
          props.splitStateMachine.metricTimedOut({ statistic: 'Sum', label: 'timed out' }),
        ]),
      ],
      [
        graph('Domain health (1 = in that state)', [
          props.domain.metric('ClusterStatus.green', { statistic: 'Maximum', label: 'green' }),
          props.domain.metricClusterStatusYellow({ label: 'yellow' }),
          props.domain.metricClusterStatusRed({ label: 'red' }),
          props.domain.metricClusterIndexWritesBlocked({ label: 'writes blocked' }),
        ]),
        graph('Domain JVM memory pressure and CPU (%)', [
          props.domain.metricJVMMemoryPressure({ label: 'JVM pressure (max)' }),
          props.domain.metricCPUUtilization({ label: 'CPU (max)' }),
        ]),
        graph(
          'Free storage (MiB, least node) and searchable documents',
          [props.domain.metricFreeStorageSpace({ label: 'free storage' })],
          THIRD,
          [props.domain.metricSearchableDocuments({ label: 'searchable documents' })],
        ),
      ],
    ];
    for (const row of rows) this.dashboard.addWidgets(...row);
  }

  private ingestMetrics(collections: readonly string[]): Metric[] {
    return collections.flatMap((collection) =>
      ['IngestAccepted', 'IngestRejected'].map(
        (metricName) =>
          new Metric({
            namespace: METRICS_NAMESPACE,
            metricName,
            dimensionsMap: { service: SERVICE_NAME, collection },
            statistic: 'Sum',
            label: `${collection} ${metricName === 'IngestAccepted' ? 'accepted' : 'rejected'}`,
          }),
      ),
    );
  }
}
