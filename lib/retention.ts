import { Duration } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import { INDEX_BASE } from '../shared/stores/opensearch/store';
import { grantDomainPaths, rollupIndexPaths } from './rollups';
import { acknowledgeWildcards, ENV, ServiceFunction } from './service-function';

export interface RetentionProps {
  /** Handler of the retention job (`functions/apply-retention.ts`). */
  readonly entry: string;
  readonly domain: IDomain;
  readonly indexPrefix: string;
  /** Months kept besides the current one (shared/documents/retention.ts); at least 1. */
  readonly months: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The retention job: every day at 03:15 UTC a function deletes the monthly report indices older than
 * the retention, by the month in their names. It may list the indices of each collection
 * (`_cat/indices/<pattern>`) and delete them (`DELETE /<index>` of the patterns), nothing else.
 */
export class Retention extends Construct {
  public readonly fn: ServiceFunction;
  public readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: RetentionProps) {
    super(scope, id);
    if (!Number.isInteger(props.months) || props.months < 1)
      throw new Error(`Retention needs at least 1 month, got ${props.months}`);
    this.fn = new ServiceFunction(this, 'ApplyRetention', {
      entry: props.entry,
      description: `Deletes the monthly report indices older than ${props.months} months (by the month in their names)`,
      timeout: Duration.minutes(5),
      memorySize: 256,
      environment: {
        [ENV.openSearchUrl]: `https://${props.domain.domainEndpoint}`,
        [ENV.openSearchAuth]: 'sigv4',
        [ENV.openSearchIndexPrefix]: props.indexPrefix,
        [ENV.retentionMonths]: String(props.months),
      },
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    const patterns = Object.values(INDEX_BASE).map((base) => `${props.indexPrefix}${base}-*`);
    const list = patterns.map((p) => `_cat/indices/${p}`);
    this.fn.addToRolePolicy(
      new PolicyStatement({ actions: ['es:ESHttpGet'], resources: list.map((p) => `${props.domain.domainArn}/${p}`) }),
    );
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['es:ESHttpDelete'],
        resources: patterns.map((p) => `${props.domain.domainArn}/${p}`),
      }),
    );
    acknowledgeWildcards(
      this.fn.role!,
      props.domain,
      [...list, ...patterns],
      'The retention job lists and deletes the monthly indices (`<collection>-YYYY.MM`) by pattern; no other index and no other request is granted.',
    );
    // The rollups' grains of an expired month are marked before and after its deletion (docs/rollups.md).
    const { monthly, rows, dirty } = rollupIndexPaths(props.indexPrefix);
    grantDomainPaths(
      this.fn,
      props.domain,
      {
        Head: [...monthly, ...rows],
        Post: [...monthly, ...rows].flatMap((p) => [`${p}/_search`, `${p}/_refresh`]),
        Put: [`${dirty}/_bulk`],
      },
      'The retention job reads the grains of the monthly indices it deletes and of their rollup rows, and marks them in the rollup bookkeeping index.',
    );

    this.schedule = new Rule(this, 'Schedule', {
      description: `Delete report indices older than ${props.months} months, daily`,
      schedule: Schedule.cron({ minute: '15', hour: '3' }),
      targets: [new LambdaFunction(this.fn, { retryAttempts: 2 })],
    });
  }
}
