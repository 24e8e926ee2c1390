import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledgeWildcards, ENV, logicalIdOf, ServiceFunction } from './service-function';

export interface BackupsProps {
  /** Handler of the daily snapshot job (`functions/take-snapshot.ts`). */
  readonly snapshotEntry: string;
  readonly domain: IDomain;
  /** Prefix of every index name: the snapshot holds the service's indices only. */
  readonly indexPrefix: string;
  /**
   * Days of daily snapshots kept (the automated ones AWS takes are kept 14 days regardless).
   * @default 30
   */
  readonly keepDays?: number;
  /**
   * Name of the repository registered in the domain.
   * @default 'daily'
   */
  readonly repositoryName?: string;
  /** @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
  readonly logRetention?: RetentionDays;
}

/**
 * Manual snapshots of the report store, beyond the hourly automated snapshots Amazon OpenSearch
 * Service keeps for 14 days (which can be restored only into the same domain): an S3 bucket that
 * outlives the domain, the role OpenSearch assumes to write it, and a daily job that registers the
 * repository (idempotently), takes a snapshot named by the date and deletes the ones past `keepDays`.
 * The restore runbook is docs/runbooks.md#restore-opensearch.
 */
export class Backups extends Construct {
  public readonly bucket: Bucket;
  /** Assumed by OpenSearch Service to read and write the bucket. */
  public readonly snapshotRole: Role;
  public readonly snapshotFunction: ServiceFunction;
  public readonly schedule: Rule;
  public readonly repositoryName: string;

  constructor(scope: Construct, id: string, props: BackupsProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;
    const keepDays = props.keepDays ?? 30;
    this.repositoryName = props.repositoryName ?? 'daily';

    this.bucket = new Bucket(this, 'Snapshots', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // No expiration of current objects: OpenSearch owns the files of the repository and deletes a
      // snapshot's own files when it deletes the snapshot; a lifecycle rule removing them would
      // corrupt every snapshot sharing them. Only abandoned uploads are cleaned up.
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Written and read only by OpenSearch Service through the snapshot role; the snapshot job that drives it logs every run. Access logs would add a second bucket for no new information.',
    });

    this.snapshotRole = new Role(this, 'SnapshotRole', {
      assumedBy: new ServicePrincipal('es.amazonaws.com'),
      description: 'Assumed by OpenSearch Service to write and read the manual snapshot repository',
    });
    this.snapshotRole.addToPolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    this.snapshotRole.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    Validations.of(this.snapshotRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.bucket)}.Arn>/*]`,
      reason:
        'A snapshot repository is a tree of files OpenSearch names itself: the role needs every object of its one bucket.',
    });

    this.snapshotFunction = new ServiceFunction(this, 'TakeSnapshot', {
      entry: props.snapshotEntry,
      description: 'Takes the daily manual OpenSearch snapshot and prunes the old ones',
      timeout: Duration.minutes(5),
      memorySize: 256,
      // A retry would find today's snapshot taken; a failure is an error and alarms instead.
      retryAttempts: 0,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
      environment: {
        [ENV.openSearchUrl]: `https://${props.domain.domainEndpoint}`,
        [ENV.openSearchAuth]: 'sigv4',
        [ENV.openSearchIndexPrefix]: props.indexPrefix,
        [ENV.snapshotRepository]: this.repositoryName,
        [ENV.snapshotBucket]: this.bucket.bucketName,
        [ENV.snapshotRoleArn]: this.snapshotRole.roleArn,
        [ENV.snapshotKeepDays]: String(keepDays),
      },
    });
    // Registering an S3 repository passes the snapshot role to OpenSearch Service.
    this.snapshotRole.grantPassRole(this.snapshotFunction.grantPrincipal);
    const paths = [`_snapshot/${this.repositoryName}`, `_snapshot/${this.repositoryName}/*`];
    this.snapshotFunction.addToRolePolicy(
      new PolicyStatement({
        actions: ['es:ESHttpGet', 'es:ESHttpPut', 'es:ESHttpDelete'],
        resources: paths.map((p) => `${props.domain.domainArn}/${p}`),
      }),
    );
    acknowledgeWildcards(
      this.snapshotFunction.role!,
      props.domain,
      paths,
      'The snapshots of the one repository, named by date: the job lists, creates and deletes them.',
    );

    this.schedule = new Rule(this, 'Schedule', {
      description:
        'Daily manual OpenSearch snapshot at 04:15 UTC, after the retention job (03:15), so that no index is deleted while it is copied',
      schedule: Schedule.cron({ hour: '4', minute: '15' }),
      targets: [new LambdaFunction(this.snapshotFunction, { retryAttempts: 0 })],
    });
  }
}
