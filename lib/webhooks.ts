import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ServiceFunction } from './service-function';

export interface WebhooksProps {
  /** Handler of the delivery function (`functions/deliver-webhooks.ts`). */
  readonly deliverEntry: string;
  /** The service's table: endpoints and deliveries (encrypted at rest with its KMS key). */
  readonly table: ITable;
  /**
   * Receives of one message before it goes to the dead-letter queue: only a failing function fails
   * a message (a failed attempt re-queues it), so a few are enough.
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * Webhook deliveries in AWS (docs/webhooks.md#in-aws): an SQS queue of deliveries to attempt, fed by
 * whoever makes them (the alert sink in the refresh, the API's test and retry routes) and by the
 * delivery function itself, which re-queues a delivery with a delay until its next attempt; the
 * function reads it in batches of up to 10, reporting failed messages one by one. Messages that fail
 * 5 receives (the function itself failing, e.g. the table unreachable) land in an encrypted
 * dead-letter queue, which the observability construct alarms on. EventBridge API destinations were
 * rejected: they cannot sign each endpoint's deliveries with its own secret.
 */
export class Webhooks extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;
  public readonly deliver: ServiceFunction;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    // An attempt takes at most 5 s; 10 of them one after another and the table's writes fit in 90 s.
    const timeout = Duration.seconds(90);
    this.deadLetterQueue = new Queue(this, 'DeliveryDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the delivery queue; a dead-letter queue has none of its own.',
    });
    this.queue = new Queue(this, 'Deliveries', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the function's timeout, as Lambda advises for an SQS event source.
      visibilityTimeout: Duration.seconds(timeout.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 5 },
    });
    this.deliver = new ServiceFunction(this, 'Deliver', {
      entry: props.deliverEntry,
      description: 'Attempts webhook deliveries from the delivery queue, signed per Standard Webhooks',
      timeout,
      memorySize: 512,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.deliver.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    this.deliver.bindTable(props.table, 'readWrite').bindDeliveryQueue(this.queue);
  }
}
