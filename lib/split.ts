import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import {
  DefinitionBody,
  LogLevel,
  Map as MapState,
  StateMachine,
  StateMachineType,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { SLICE_ITEM_SELECTOR, SLICE_ITEMS_PATH } from '../shared/report/split/contract';
import { logicalIdOf, ServiceFunction } from './service-function';

export interface SplitProps {
  /** Handler of one slice (`functions/run-report-slice.ts`). */
  readonly workerEntry: string;
  /**
   * Most slices run at once (the Map state's MaxConcurrency); bounds the load on the domain.
   * @default 10
   */
  readonly maxConcurrency?: number;
  /**
   * Whole-execution time limit. The API answers within 30 s, so the default leaves room for the
   * query function to plan before and merge after.
   * @default Duration.seconds(25)
   */
  readonly timeout?: Duration;
  /**
   * Log state inputs and outputs (report data of tenants) as well as the events.
   * @default false
   */
  readonly logExecutionData?: boolean;
  /** @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** @default 1024 */
  readonly memorySize?: number;
  /**
   * Reserved concurrency of the worker: the most slices running at once across all split reports
   * (a throttled slice is retried by the Map's Retry).
   * @default - none (the account's unreserved pool)
   */
  readonly workerReservedConcurrency?: number;
}

/** Lambda errors worth one more try: the service's own, not the worker's. */
const TRANSIENT_LAMBDA_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

/**
 * The AWS path of splitInterval: a synchronous Express state machine whose Map state runs the slice
 * worker once per slice with bounded concurrency.
 *
 * Contract (functions/run-report-slice.ts): the execution input is
 * `{ plan, scope, inlineLimitBytes, slices: [{ from, to }, ...] }` (all four always present: a
 * JSONPath to a missing field fails the execution); the Map state iterates `$.slices` and hands each
 * worker `{ plan, scope, inlineLimitBytes, slice }`, so the plan travels once, not once per slice.
 * The output is the array of worker results in slice order. A failing slice fails the execution
 * (no partial success); only Lambda service errors are retried. Results larger than the state
 * payload allows go to `resultsBucket` (objects expire after a day) and travel by reference.
 */
export class Split extends Construct {
  public readonly worker: ServiceFunction;
  public readonly stateMachine: StateMachine;
  public readonly slices: MapState;
  public readonly resultsBucket: Bucket;
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: SplitProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const timeout = props.timeout ?? Duration.seconds(25);

    this.worker = new ServiceFunction(this, 'Worker', {
      entry: props.workerEntry,
      description: 'Runs one slice of a split report',
      timeout: Duration.seconds(Math.max(1, timeout.toSeconds() - 5)),
      memorySize: props.memorySize ?? 1024,
      logRetention: retention,
      ...(props.workerReservedConcurrency ? { reservedConcurrentExecutions: props.workerReservedConcurrency } : {}),
    });

    this.resultsBucket = new Bucket(this, 'SliceResults', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration: Duration.days(1) }],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });
    Validations.of(this.resultsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Transient slice results that expire after one day, written and read only by two functions whose calls are traced and logged.',
    });

    const runSlice = new LambdaInvoke(this, 'RunSlice', {
      lambdaFunction: this.worker,
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
    });
    runSlice.addRetry({
      errors: TRANSIENT_LAMBDA_ERRORS,
      interval: Duration.seconds(1),
      maxAttempts: 2,
      backoffRate: 2,
    });

    this.slices = new MapState(this, 'Slices', {
      comment: 'One worker run per slice, at most maxConcurrency at once',
      itemsPath: SLICE_ITEMS_PATH,
      itemSelector: { ...SLICE_ITEM_SELECTOR },
      maxConcurrency: props.maxConcurrency ?? 10,
    });
    this.slices.itemProcessor(runSlice);

    // A `/aws/vendedlogs/` name keeps the CloudWatch Logs resource policy small
    // (https://docs.aws.amazon.com/step-functions/latest/dg/cw-logs.html).
    this.logGroup = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `/aws/vendedlogs/states/${id}-${this.node.addr.slice(0, 10)}`,
      retention,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.EXPRESS,
      definitionBody: DefinitionBody.fromChainable(this.slices),
      timeout,
      tracingEnabled: true,
      logs: { destination: this.logGroup, level: LogLevel.ALL, includeExecutionData: props.logExecutionData ?? false },
      comment: 'splitInterval: run report slices in parallel',
    });
    Validations.of(this.stateMachine.role).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.worker)}.Arn>:*]`,
        reason: 'The LambdaInvoke task may call any version or alias of the one slice worker.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray tracing (xray:PutTraceSegments, PutTelemetryRecords, GetSampling*) and CloudWatch Logs delivery (logs:CreateLogDelivery and related) support only Resource "*" (https://docs.aws.amazon.com/step-functions/latest/dg/cw-logs.html).',
      },
    );
  }
}
