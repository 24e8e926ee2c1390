import { createHash } from 'node:crypto';
import { CustomResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { CfnResourcePolicy, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Domain, EngineVersion, TLSSecurityPolicy } from 'aws-cdk-lib/aws-opensearchservice';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EbsDeviceVolumeType } from 'aws-cdk-lib/aws-ec2';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { PROBE_REQUEST } from '../shared/health/checks';
import { COLLECTIONS } from '../shared/documents/fields';
import { SENSOR_COLLECTIONS } from '../shared/sensor-health/activity';
import {
  dirtyIndexName,
  INDEX_BASE,
  indexTemplates,
  ismPolicyId,
  replicasFor,
  rollupIndexNames,
  servicePatterns,
} from '../shared/stores/opensearch/store';
import { DEFAULT_RETENTION_MONTHS } from '../shared/documents/retention';
import { acknowledgeWildcards, logicalIdOf, type OpenSearchBinding, ServiceFunction } from './service-function';

export interface ReportingProps {
  /** Handler of the index-setup custom resource (`functions/setup-indices.ts`). */
  readonly setupIndicesEntry: string;
  /**
   * OpenSearch version.
   * @default EngineVersion.OPENSEARCH_2_19 (the version the integration tests run against)
   */
  readonly engineVersion?: EngineVersion;
  /**
   * Number of data nodes. With 2 or more, zone awareness spreads them over 2 or 3 zones and index
   * templates ask for one replica; with 1, replicas are 0 (a single node cannot host a replica).
   * @default 1
   */
  readonly dataNodes?: number;
  /** @default 't3.small.search' */
  readonly dataNodeInstanceType?: string;
  /**
   * Dedicated master nodes (0 or 3 or 5). Recommended for production domains.
   * @default 0
   */
  readonly masterNodes?: number;
  /** @default 'm7g.large.search' */
  readonly masterNodeInstanceType?: string;
  /**
   * EBS gp3 volume per data node.
   * @default 10
   */
  readonly volumeGiB?: number;
  /**
   * Prefix of every index and index template name.
   * @default ''
   */
  readonly indexPrefix?: string;
  /**
   * What happens to the domain (and its data) when the stack deletes it.
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * Months of report data kept (shared/documents/retention.ts): the index-setup custom resource installs
   * the ISM safety-net policy for it (shared/stores/opensearch/layout/ism.ts), or removes it for 0.
   * @default DEFAULT_RETENTION_MONTHS (25)
   */
  readonly retentionMonths?: number;
}

/**
 * The report store: an OpenSearch domain reachable only with SigV4-signed requests from IAM principals
 * granted access (no resource policy, no anonymous access), HTTPS with TLS 1.2, encrypted at rest
 * and between nodes, with slow and error logs in CloudWatch, and the index templates of every
 * collection put in place by a custom resource that runs the project's own index module.
 */
export class Reporting extends Construct {
  public readonly domain: Domain;
  public readonly indexPrefix: string;
  /** The function behind the index-templates custom resource. */
  public readonly setupIndices: ServiceFunction;
  public readonly indexTemplates: CustomResource;

  constructor(scope: Construct, id: string, props: ReportingProps) {
    super(scope, id);
    const dataNodes = props.dataNodes ?? 1;
    const masterNodes = props.masterNodes ?? 0;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    this.indexPrefix = props.indexPrefix ?? '';
    const zones = dataNodes % 3 === 0 ? 3 : dataNodes % 2 === 0 ? 2 : 1;

    const logGroup = (name: string) => new LogGroup(this, name, { retention, removalPolicy });
    const slowSearchLogGroup = logGroup('SlowSearchLogs');
    const slowIndexLogGroup = logGroup('SlowIndexLogs');
    const appLogGroup = logGroup('ApplicationLogs');
    // The L2 would create this policy through a Lambda-backed custom resource; the CloudFormation
    // resource does the same natively.
    // https://docs.aws.amazon.com/opensearch-service/latest/developerguide/createdomain-configure-slow-logs.html
    const logsPolicy = new CfnResourcePolicy(this, 'LogsResourcePolicy', {
      policyName: `${Stack.of(this).stackName}-opensearch-logs`,
      policyDocument: Stack.of(this).toJsonString({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: { Service: 'es.amazonaws.com' },
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: [slowSearchLogGroup.logGroupArn, slowIndexLogGroup.logGroupArn, appLogGroup.logGroupArn],
            Condition: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
          },
        ],
      }),
    });

    this.domain = new Domain(this, 'Domain', {
      version: props.engineVersion ?? EngineVersion.OPENSEARCH_2_19,
      capacity: {
        dataNodes,
        dataNodeInstanceType: props.dataNodeInstanceType ?? 't3.small.search',
        ...(masterNodes > 0
          ? { masterNodes, masterNodeInstanceType: props.masterNodeInstanceType ?? 'm7g.large.search' }
          : {}),
        multiAzWithStandbyEnabled: false,
      },
      ebs: { volumeSize: props.volumeGiB ?? 10, volumeType: EbsDeviceVolumeType.GP3 },
      zoneAwareness: zones > 1 ? { enabled: true, availabilityZoneCount: zones } : { enabled: false },
      encryptionAtRest: { enabled: true },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: TLSSecurityPolicy.TLS_1_2,
      logging: {
        slowSearchLogEnabled: true,
        slowSearchLogGroup,
        slowIndexLogEnabled: true,
        slowIndexLogGroup,
        appLogEnabled: true,
        appLogGroup,
      },
      suppressLogsResourcePolicy: true,
      enableAutoSoftwareUpdate: true,
      // IAM authorizes a request by its path alone; with this, a _bulk, _mget or _msearch body cannot
      // name an index other than the path's, so a grant on `<index>/_bulk` holds for what is written.
      // https://docs.aws.amazon.com/opensearch-service/latest/developerguide/ac.html#ac-advanced
      advancedOptions: { 'rest.action.multi.allow_explicit_index': 'false' },
      // Without this update policy CloudFormation replaces the domain when EngineVersion changes: a new,
      // empty domain (and, retained, the old one orphaned). With it, the version change is an in-place
      // blue/green upgrade of the same domain. docs/operations.md#upgrading-opensearch
      enableVersionUpgrade: true,
      removalPolicy,
    });
    this.domain.node.addDependency(logsPolicy);
    this.acknowledgeDomainFindings(dataNodes, masterNodes);

    this.setupIndices = new ServiceFunction(this, 'SetupIndices', {
      entry: props.setupIndicesEntry,
      description: 'Creates or updates the OpenSearch index templates (CloudFormation custom resource)',
      timeout: Duration.minutes(5),
      memorySize: 256,
      logRetention: retention,
    });
    this.setupIndices.addToRolePolicy(
      new PolicyStatement({
        // opensearch-js sends putIndexTemplate as POST; PUT is the documented verb.
        actions: ['es:ESHttpPost', 'es:ESHttpPut'],
        resources: [`${this.domain.domainArn}/_index_template/${this.indexPrefix}*`],
      }),
    );
    acknowledgeWildcards(
      this.setupIndices.role!,
      this.domain,
      [`_index_template/${this.indexPrefix}*`],
      'One index template per collection, all named with the index prefix; the pattern grants exactly those.',
    );
    // The rollups' indices, created before any report reads them (ensureRollupIndices): HEAD, then PUT
    // of each one missing, by name.
    const rollupIndices = [
      dirtyIndexName(this.indexPrefix),
      ...COLLECTIONS.flatMap((c) => rollupIndexNames(this.indexPrefix, c)),
    ];
    this.setupIndices.addToRolePolicy(
      new PolicyStatement({
        actions: ['es:ESHttpHead', 'es:ESHttpPut'],
        resources: rollupIndices.map((index) => `${this.domain.domainArn}/${index}`),
      }),
    );
    // Raising the replicas of the indices already there (raiseReplicas: a domain grown to more data
    // nodes): a read of each pattern's replica counts, then a PUT of each index with fewer.
    const patterns = servicePatterns(this.indexPrefix);
    this.setupIndices.addToRolePolicy(
      new PolicyStatement({
        actions: ['es:ESHttpGet'],
        resources: patterns.map((p) => `${this.domain.domainArn}/${p}/_settings/index.number_of_replicas`),
      }),
    );
    this.setupIndices.addToRolePolicy(
      new PolicyStatement({
        actions: ['es:ESHttpPut'],
        resources: patterns.map((p) => `${this.domain.domainArn}/${p}/_settings`),
      }),
    );
    acknowledgeWildcards(
      this.setupIndices.role!,
      this.domain,
      patterns
        .filter((p) => p.includes('*'))
        .flatMap((p) => [`${p}/_settings/index.number_of_replicas`, `${p}/_settings`]),
      "The replica count of the collection's monthly indices, read and raised by pattern; nothing else of them.",
    );
    this.grantIsmInstallation();

    const provider = new Provider(this, 'SetupIndicesProvider', {
      onEventHandler: this.setupIndices,
      logGroup: new LogGroup(this, 'SetupIndicesProviderLogs', { retention, removalPolicy: RemovalPolicy.DESTROY }),
    });
    this.acknowledgeProviderFindings(provider);

    const replicas = replicasFor(dataNodes);
    const templates = indexTemplates(this.indexPrefix, { shards: 1, replicas });
    this.indexTemplates = new CustomResource(this, 'IndexTemplates', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::OpenSearchIndexTemplates',
      properties: {
        Endpoint: `https://${this.domain.domainEndpoint}`,
        IndexPrefix: this.indexPrefix,
        Shards: '1',
        Replicas: String(replicas),
        TemplatesHash: createHash('sha256').update(JSON.stringify(templates)).digest('hex').slice(0, 16),
        RetentionMonths: String(props.retentionMonths ?? DEFAULT_RETENTION_MONTHS),
      },
    });
  }

  /**
   * What installing the ISM policy sends (shared/stores/opensearch/layout/ism.ts): GET, PUT and DELETE
   * of the one policy, `add`, `change_policy` and `remove` on the monthly indices of each collection.
   */
  private grantIsmInstallation(): void {
    const policy = `_plugins/_ism/policies/${ismPolicyId(this.indexPrefix)}`;
    const patterns = Object.values(INDEX_BASE).map((base) => `${this.indexPrefix}${base}-*`);
    const attach = patterns.flatMap((p) =>
      ['add', 'change_policy', 'remove'].map((call) => `_plugins/_ism/${call}/${p}`),
    );
    this.setupIndices.addToRolePolicy(
      new PolicyStatement({
        actions: ['es:ESHttpGet', 'es:ESHttpPut', 'es:ESHttpDelete'],
        resources: [`${this.domain.domainArn}/${policy}`],
      }),
    );
    this.setupIndices.addToRolePolicy(
      new PolicyStatement({
        actions: ['es:ESHttpPost'],
        resources: attach.map((p) => `${this.domain.domainArn}/${p}`),
      }),
    );
    acknowledgeWildcards(
      this.setupIndices.role!,
      this.domain,
      attach,
      'The ISM policy is added to, moved to its new version on, or removed from the monthly indices of each collection by pattern; nothing else.',
    );
  }

  /** Read access for report queries: the monthly indices of every collection. */
  public get queryBinding(): OpenSearchBinding {
    return {
      domain: this.domain,
      indexPrefix: this.indexPrefix,
      indexPatterns: Object.values(INDEX_BASE).map((base) => `${base}-*`),
    };
  }

  /** Search access for the health check: the indices of the collection its probe report reads. */
  public get healthBinding(): OpenSearchBinding {
    return {
      domain: this.domain,
      indexPrefix: this.indexPrefix,
      indexPatterns: [`${INDEX_BASE[PROBE_REQUEST.source]}-*`],
    };
  }

  /** Search access for sensor health (shared/sensor-health): the indices of the collections it counts. */
  public get sensorHealthBinding(): OpenSearchBinding {
    return {
      domain: this.domain,
      indexPrefix: this.indexPrefix,
      indexPatterns: SENSOR_COLLECTIONS.map((c) => `${INDEX_BASE[c]}-*`),
    };
  }

  private acknowledgeDomainFindings(dataNodes: number, masterNodes: number): void {
    const domain = Validations.of(this.domain);
    domain.acknowledge(
      {
        id: 'AwsSolutions-OS1',
        reason:
          'Public endpoint on purpose: every request must be SigV4-signed by an IAM principal with an identity policy for this domain (no resource policy, no anonymous access). A VPC would put every function in it and need NAT or endpoints for DynamoDB, Step Functions and S3.',
      },
      {
        id: 'AwsSolutions-OS3',
        reason:
          'Access is controlled by IAM (SigV4) rather than by source IP: the callers are Lambda functions without fixed addresses.',
      },
      {
        id: 'AwsSolutions-OS5',
        reason:
          'The domain has no access policy at all: only IAM principals whose identity policies name the domain can call it, always signed.',
      },
    );
    if (masterNodes === 0) {
      domain.acknowledge({
        id: 'AwsSolutions-OS4',
        reason:
          'Dedicated master nodes are sized per stage from context (openSearchMasterNodes); small stages run without them to save cost.',
      });
    }
    if (dataNodes < 2) {
      domain.acknowledge({
        id: 'AwsSolutions-OS7',
        reason:
          'Zone awareness needs 2+ data nodes; the node count comes from context (openSearchDataNodes) and small stages run one.',
      });
    }
  }

  private acknowledgeProviderFindings(provider: Provider): void {
    Validations.of(provider).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'The CDK custom resource provider framework function uses the basic execution role for its own logs.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.setupIndices)}.Arn>:*]`,
        reason: 'The provider framework may invoke any version or alias of the one index-setup function.',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'The provider framework function runtime is chosen by aws-cdk-lib, not by this app.',
      },
    );
  }
}
