import { Duration } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import { COLLECTIONS } from '../shared/documents/fields';
import { INDEX_BASE, rollupIndexName, rollupIndexNames } from '../shared/stores/opensearch/store';
import { acknowledgeWildcards, ENV, ServiceFunction } from './service-function';

export interface RollupsProps {
  /** Handler of the rebuild job (`functions/rebuild-rollups.ts`). */
  readonly entry: string;
  readonly domain: IDomain;
  readonly indexPrefix: string;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

type Method = 'Get' | 'Head' | 'Post' | 'Put' | 'Delete';

/** Grants `es:ESHttp<method>` on each `<prefix><path>` of the domain, and acknowledges the patterns. */
export function grantDomainPaths(
  fn: ServiceFunction,
  domain: IDomain,
  grants: Partial<Record<Method, readonly string[]>>,
  reason: string,
): void {
  const all: string[] = [];
  for (const [method, paths] of Object.entries(grants) as [Method, readonly string[]][]) {
    fn.addToRolePolicy(
      new PolicyStatement({ actions: [`es:ESHttp${method}`], resources: paths.map((p) => `${domain.domainArn}/${p}`) }),
    );
    all.push(...paths);
  }
  acknowledgeWildcards(
    fn.role!,
    domain,
    [...new Set(all)].filter((p) => p.includes('*')),
    reason,
  );
}

/** The index names the rollups use (docs/rollups.md, "On OpenSearch"), with the prefix. */
export function rollupIndexPaths(prefix: string) {
  const bases = Object.values(INDEX_BASE);
  return {
    monthly: bases.map((b) => `${prefix}${b}-*`),
    /** The finest rows, which hold every grain (what a deletion reads the grains of). */
    rows: COLLECTIONS.map((c) => rollupIndexName(prefix, c)),
    /** The rows of every level (15 minutes, hours, days): what the rebuild writes and reports read. */
    levels: COLLECTIONS.flatMap((c) => rollupIndexNames(prefix, c)),
    dirty: `${prefix}rollup-dirty`,
  };
}

/**
 * The rollups' rebuild job (docs/rollups.md, "On OpenSearch"): every minute a function recomputes the
 * grains written since its last run. Every minute because a report reads the grains after the
 * earliest dirty one raw: the rebuild keeps that tail at a minute or two of documents, and a run with
 * nothing to do costs three searches of a small index. One run at a time, by a lease in the
 * bookkeeping index (not reserved concurrency, which new accounts cannot have): a run that finds it
 * held does nothing. Its role may read the monthly indices
 * (search, refresh, exists), write the rollup indices (bulk, delete by query, refresh) and the
 * bookkeeping index (search, bulk, its readiness and lease documents), nothing else.
 */
export class Rollups extends Construct {
  public readonly fn: ServiceFunction;
  public readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: RollupsProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'RebuildRollups', {
      entry: props.entry,
      description: 'Recomputes the report rollups of the grains written since the last run (docs/rollups.md)',
      timeout: Duration.minutes(5),
      memorySize: 512,
      environment: {
        [ENV.openSearchUrl]: `https://${props.domain.domainEndpoint}`,
        [ENV.openSearchAuth]: 'sigv4',
        [ENV.openSearchIndexPrefix]: props.indexPrefix,
      },
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    const { monthly, levels: rows, dirty } = rollupIndexPaths(props.indexPrefix);
    grantDomainPaths(
      this.fn,
      props.domain,
      {
        Head: monthly,
        Post: [
          ...monthly.flatMap((p) => [`${p}/_search`, `${p}/_refresh`]),
          ...rows.flatMap((p) => [`${p}/_delete_by_query`, `${p}/_refresh`]),
          `${dirty}/_search`,
        ],
        Put: [
          ...rows.map((p) => `${p}/_bulk`),
          `${dirty}/_bulk`,
          `${dirty}/_doc/ready:*`,
          `${dirty}/_doc/lease:rebuild`,
        ],
        Get: [`${dirty}/_doc/lease:rebuild`],
        Delete: [`${dirty}/_doc/lease:rebuild`],
      },
      'The rollup rebuild reads the monthly indices (`<collection>-YYYY.MM`) by pattern and writes its own rollup and bookkeeping indices; no other index and no other request is granted.',
    );
    this.schedule = new Rule(this, 'Schedule', {
      description: 'Recompute the report rollups of the grains written since the last run, every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.fn, { retryAttempts: 2 })],
    });
  }
}
