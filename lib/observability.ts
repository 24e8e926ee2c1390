import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { FilterPattern, type IFilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../shared/service-identity';
import { runbookOf } from './runbooks';

export interface ObservabilityProps {
  readonly api: IHttpApi;
  /** The API's JSON access logs: throttled requests (429) are counted from them. */
  readonly accessLogs: ILogGroup;
  /** Every function whose errors and throttles should page, by a readable name. */
  readonly functions: Readonly<Record<string, IFunction>>;
  /** The occupancy refresh job and the queue its failures land in. */
  readonly refresh: { readonly fn: IFunction; readonly deadLetterQueue: IQueue };
  /** Where webhook delivery messages land when the delivery function failed them 5 times. */
  readonly webhookDeadLetters?: IQueue;
  readonly splitStateMachine: IStateMachine;
  readonly domain: IDomain;
  /** EBS volume per data node, for the free-storage alarm. */
  readonly volumeGiB: number;
  /**
   * The ingest route: its collections (the `collection` dimension of the ingest function's
   * IngestAccepted, IngestDuplicates and IngestRejected metrics) and its route key (for its 429s).
   * @default - no ingest alarms
   */
  readonly ingest?: { readonly collections: readonly string[]; readonly routeKey: string };
  /**
   * Share of refused lines among all lines sent to one collection that raises the alarm when it
   * holds for 15 minutes.
   * @default 0.05
   */
  readonly ingestRejectedShare?: number;
  /**
   * Subscribe this address to the alarm topic.
   * @default - no subscription (subscribe later to `topic`)
   */
  readonly alarmEmail?: string;
  /**
   * Share of 5xx answers among all requests, over five minutes, that raises the alarm.
   * @default 0.05
   */
  readonly serverErrorRate?: number;
  /**
   * p99 of the API's answer time, over five minutes, that raises the alarm when it holds for 15
   * minutes. A report may take up to the 29 s integration limit; answers that slow are the ones
   * users give up on.
   * @default Duration.seconds(10)
   */
  readonly latencyP99?: Duration;
}

/**
 * Alarms that say the service is failing its users: 5xx answers of the API, errors and throttles of
 * every function, occupancy refreshes that fail (errors, locations that failed, or anything in the
 * dead-letter queue), failed
 * split executions, and an OpenSearch domain that is red, blocks writes or runs out of disk. Every
 * alarm notifies one SNS topic. The functions emit their own logs, metrics and traces through
 * Powertools (configured by `ServiceFunction`).
 */
export class Observability extends Construct {
  public readonly topic: Topic;
  public readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Alarms', { displayName: 'Location and Reporting Service alarms', enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const fiveMinutes = Duration.minutes(5);

    const serverErrors = props.api.metricServerError({ period: fiveMinutes, statistic: 'Sum' });
    const requests = props.api.metricCount({ period: fiveMinutes, statistic: 'Sum' });
    this.alarm('Api5xxRate', 'More than the allowed share of API requests answered 5xx', {
      metric: new MathExpression({
        expression: 'IF(requests > 0, errors / requests, 0)',
        usingMetrics: { errors: serverErrors, requests },
        period: fiveMinutes,
        label: '5xx rate',
      }),
      threshold: props.serverErrorRate ?? 0.05,
    });
    this.alarm('Api5xxBurst', 'At least 10 API answers were 5xx within 5 minutes', {
      metric: serverErrors,
      threshold: 10,
      exclusive: false,
    });
    const p99 = props.latencyP99 ?? Duration.seconds(10);
    this.alarm('ApiLatencyP99', `p99 of API answer time above ${p99.toSeconds()} s for 15 minutes`, {
      metric: props.api.metricLatency({ period: fiveMinutes, statistic: 'p99' }),
      threshold: p99.toMilliseconds(),
      evaluationPeriods: 3,
    });
    this.throttleAlarm(
      'ApiThrottled',
      props.accessLogs,
      FilterPattern.stringValue('$.status', '=', '429'),
      'API Gateway throttled at least 10 requests within 5 minutes (429 Too Many Requests)',
    );

    if (props.ingest) this.ingestAlarms(props.ingest, props.accessLogs, props.ingestRejectedShare ?? 0.05);

    for (const [name, fn] of Object.entries(props.functions)) {
      this.alarm(`${name}Errors`, `${name}: invocations failed`, {
        metric: fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
        exclusive: false,
      });
      this.alarm(`${name}Throttles`, `${name}: invocations throttled`, {
        metric: fn.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
        exclusive: false,
      });
    }

    this.alarm('RefreshFailures', 'Occupancy refresh failed in 2 of the last 3 runs (live occupancy goes stale)', {
      metric: props.refresh.fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
      threshold: 1,
      exclusive: false,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
    // A failing location does not fail the run (the others are refreshed); the function counts them.
    this.alarm(
      'RefreshLocationFailures',
      'Occupancy refresh failed for some locations in 2 of the last 3 runs (their live occupancy goes stale; see the refresh logs)',
      {
        metric: new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: 'OccupancyRefreshFailures',
          dimensionsMap: { service: SERVICE_NAME },
          period: fiveMinutes,
          statistic: 'Sum',
        }),
        threshold: 1,
        exclusive: false,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
      },
    );
    this.alarm('RefreshDeadLetters', 'Occupancy refreshes gave up after their retries (see the dead-letter queue)', {
      metric: props.refresh.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: fiveMinutes,
        statistic: 'Maximum',
      }),
      threshold: 1,
      exclusive: false,
    });
    if (props.webhookDeadLetters)
      this.alarm(
        'WebhookDeadLetters',
        'Webhook delivery messages the delivery function failed 5 times (see the dead-letter queue)',
        {
          metric: props.webhookDeadLetters.metricApproximateNumberOfMessagesVisible({
            period: fiveMinutes,
            statistic: 'Maximum',
          }),
          threshold: 1,
          exclusive: false,
        },
      );
    this.alarm('SplitFailures', 'Split report executions failed or timed out', {
      metric: new MathExpression({
        expression: 'failed + timedOut',
        usingMetrics: {
          failed: props.splitStateMachine.metricFailed({ period: fiveMinutes, statistic: 'Sum' }),
          timedOut: props.splitStateMachine.metricTimedOut({ period: fiveMinutes, statistic: 'Sum' }),
        },
        period: fiveMinutes,
      }),
      threshold: 1,
      exclusive: false,
    });

    this.alarm('DomainRed', 'OpenSearch cluster status is red (a primary shard is unassigned)', {
      metric: props.domain.metricClusterStatusRed({ period: Duration.minutes(1), statistic: 'Maximum' }),
      threshold: 1,
      exclusive: false,
    });
    this.alarm('DomainWritesBlocked', 'OpenSearch blocks index writes', {
      metric: props.domain.metricClusterIndexWritesBlocked({ period: fiveMinutes, statistic: 'Maximum' }),
      threshold: 1,
      exclusive: false,
    });
    // The domain thresholds are those AWS recommends for OpenSearch Service
    // (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/cloudwatch-alarms.html).
    this.alarm(
      'DomainJvmPressure',
      'OpenSearch JVM memory pressure at or above 95% (the node is close to out-of-memory and may reject requests)',
      {
        metric: props.domain.metricJVMMemoryPressure({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 95,
        exclusive: false,
        evaluationPeriods: 3,
      },
    );
    this.alarm('DomainCpu', 'OpenSearch CPU at or above 80% for 45 minutes (the domain is undersized for its load)', {
      metric: props.domain.metricCPUUtilization({ period: Duration.minutes(15), statistic: 'Maximum' }),
      threshold: 80,
      exclusive: false,
      evaluationPeriods: 3,
    });
    // A search the node's queue cannot take is rejected (429), which the functions answer as 503.
    this.alarm('DomainSearchRejected', 'OpenSearch rejected searches (its search queue was full)', {
      metric: props.domain.metric('ThreadpoolSearchRejected', { period: fiveMinutes, statistic: 'Sum' }),
      threshold: 1,
      exclusive: false,
    });
    // FreeStorageSpace is in MiB per node; alarm below a quarter of the volume.
    this.alarm('DomainLowStorage', 'An OpenSearch data node has less than 25% of its disk free', {
      metric: props.domain.metricFreeStorageSpace({ period: fiveMinutes, statistic: 'Minimum' }),
      threshold: props.volumeGiB * 1024 * 0.25,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
    });
  }

  /**
   * Per collection, the share of refused lines (a gateway sending documents the service cannot take:
   * wrong organization, unknown location, bad fields) over 15 minutes; and the ingest route's own
   * 429s (its throttle, lib/stack.ts), which gateways retry but which say the budget is too small.
   * The ingest function's errors and throttles are alarmed with every function's.
   */
  private ingestAlarms(ingest: NonNullable<ObservabilityProps['ingest']>, accessLogs: ILogGroup, share: number): void {
    const fiveMinutes = Duration.minutes(5);
    for (const collection of ingest.collections) {
      const lines = (metricName: string) =>
        new Metric({
          namespace: METRICS_NAMESPACE,
          metricName,
          dimensionsMap: { service: SERVICE_NAME, collection },
          period: fiveMinutes,
          statistic: 'Sum',
        });
      this.alarm(
        `Ingest${collection[0]!.toUpperCase()}${collection.slice(1)}Rejected`,
        `More than ${share * 100}% of the ${collection} lines sent were refused, for 15 minutes (see the ingest logs for which fields)`,
        {
          metric: new MathExpression({
            expression: 'IF(accepted + duplicates + rejected > 0, rejected / (accepted + duplicates + rejected), 0)',
            usingMetrics: {
              accepted: lines('IngestAccepted'),
              duplicates: lines('IngestDuplicates'),
              rejected: lines('IngestRejected'),
            },
            period: fiveMinutes,
            label: `${collection} rejected share`,
          }),
          threshold: share,
          evaluationPeriods: 3,
        },
      );
    }
    this.throttleAlarm(
      'IngestThrottled',
      accessLogs,
      FilterPattern.all(
        FilterPattern.stringValue('$.status', '=', '429'),
        FilterPattern.stringValue('$.route', '=', ingest.routeKey),
      ),
      "API Gateway throttled at least 10 ingest requests within 5 minutes (the ingest route's own budget is spent)",
    );
  }

  /**
   * HTTP APIs publish no throttle metric (a throttled request is one of the 4xx); the access log has
   * the status of each, so a metric filter counts the 429s `pattern` selects, and the alarm fires at
   * 10 within 5 minutes. `id` names the alarm, its filter (`<id>Filter`) and metric (`<id>Requests`).
   */
  private throttleAlarm(id: string, accessLogs: ILogGroup, pattern: IFilterPattern, description: string): void {
    const throttled = new MetricFilter(this, `${id}Filter`, {
      logGroup: accessLogs,
      filterPattern: pattern,
      metricNamespace: METRICS_NAMESPACE,
      metricName: `${id}Requests`,
      metricValue: '1',
      defaultValue: 0,
    });
    this.alarm(id, description, {
      metric: throttled.metric({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 10,
      exclusive: false,
    });
  }

  private alarm(
    id: string,
    description: string,
    o: {
      metric: IMetric;
      threshold: number;
      exclusive?: boolean;
      comparison?: ComparisonOperator;
      evaluationPeriods?: number;
      datapointsToAlarm?: number;
    },
  ): Alarm {
    const comparisonOperator =
      o.comparison ??
      (o.exclusive === false
        ? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD
        : ComparisonOperator.GREATER_THAN_THRESHOLD);
    const alarm = new Alarm(this, id, {
      alarmDescription: `${description}. Runbook: ${runbookOf(id)}`,
      metric: o.metric,
      threshold: o.threshold,
      comparisonOperator,
      evaluationPeriods: o.evaluationPeriods ?? 1,
      datapointsToAlarm: o.datapointsToAlarm ?? o.evaluationPeriods ?? 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }
}
