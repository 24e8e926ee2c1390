import { TABLE_KEYS, TTL_ATTRIBUTE } from '../shared/locations/table';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ServiceFunction } from './service-function';

export interface OccupancyProps {
  /** Handler of the refresh job (`functions/refresh-occupancy.ts`). */
  readonly refreshEntry: string;
  /**
   * Minutes between refreshes; must divide 60. Runs start on the marks (cron `0/5`), which the
   * live-insights handler relies on for its `Cache-Control: max-age` up to the next refresh.
   * @default 5
   */
  readonly refreshEveryMinutes?: number;
  /**
   * Attempts after a failed refresh (EventBridge delivery and the asynchronous invocation alike).
   * @default 2
   */
  readonly retryAttempts?: number;
  /**
   * What happens to the table when the stack deletes it.
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** @default 1024 */
  readonly memorySize?: number;
}

/**
 * Locations, sensor groups and the live occupancy cache: one DynamoDB table (keys `PK`/`SK`,
 * on demand, point-in-time recovery), and the refresh job run by an EventBridge schedule every
 * 5 minutes. A refresh
 * that still fails after its retries, or could not be delivered, lands in an encrypted dead-letter
 * queue; an event older than one period is dropped, as the next run supersedes it.
 */
export class Occupancy extends Construct {
  public readonly table: Table;
  public readonly refresh: ServiceFunction;
  public readonly schedule: Rule;
  public readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: OccupancyProps) {
    super(scope, id);
    const minutes = props.refreshEveryMinutes ?? 5;
    if (!Number.isInteger(minutes) || minutes < 1 || 60 % minutes !== 0)
      throw new Error(`refreshEveryMinutes must divide 60, got ${minutes}`);
    const period = Duration.minutes(minutes);
    const retryAttempts = props.retryAttempts ?? 2;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partition, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sort, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      // Occupancy entries expire a day after their refresh (shared/locations/table.ts TTL_ATTRIBUTE).
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
    });

    this.deadLetterQueue = new Queue(this, 'RefreshDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the dead-letter queue of the refresh (Lambda on-failure destination and EventBridge target DLQ), which cdk-nag cannot see.',
    });

    this.refresh = new ServiceFunction(this, 'Refresh', {
      entry: props.refreshEntry,
      description: 'Refreshes the live occupancy cache of every open sensor group',
      timeout: Duration.minutes(2),
      memorySize: props.memorySize ?? 1024,
      retryAttempts,
      maxEventAge: period,
      onFailure: new SqsDestination(this.deadLetterQueue),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });

    this.schedule = new Rule(this, 'Schedule', {
      description: `Refresh live occupancy every ${minutes} minutes, on the marks`,
      // Every 5 minutes like rate(5 minutes), but aligned to :00, :05, ... (a rate starts whenever the rule was
      // created).
      schedule: Schedule.cron({ minute: `0/${minutes}` }),
      targets: [
        new LambdaFunction(this.refresh, { retryAttempts, maxEventAge: period, deadLetterQueue: this.deadLetterQueue }),
      ],
    });
  }
}
