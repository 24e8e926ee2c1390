import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  AssetHashType,
  AssetStaging,
  type CfnElement,
  DockerImage,
  Duration,
  type FingerprintOptions,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, type IFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { AssetOptions } from 'aws-cdk-lib/aws-s3-assets';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { ENV } from '../functions/commons/env';
import { BUNDLE_ENTRY_FILE, bundleHandler, projectRelative } from './bundling';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../shared/service-identity';

export { ENV };

export type DataAccess = 'read' | 'readWrite';

type HttpMethod = 'POST' | 'PUT';

/** The one request a report sends (opensearch-js sends a search with a body as POST). */
export const SEARCH_REQUESTS: Readonly<Record<string, HttpMethod>> = { _search: 'POST' };

/**
 * The requests of the ingest writer, by endpoint and the HTTP method opensearch-js sends them with:
 * `bulk` with an index in the path is a PUT (api/_core/bulk.js), `mget` and `search` with a body POST.
 * IAM authorizes each by method (`es:ESHttpPut`, `es:ESHttpPost`) and path.
 */
export const INGEST_REQUESTS: Readonly<Record<string, HttpMethod>> = { _bulk: 'PUT', _mget: 'POST', _search: 'POST' };

/** What an OpenSearch-bound function needs to know about the domain and its indices. */
export interface OpenSearchBinding {
  readonly domain: IDomain;
  /** Prefix of every index and template name. */
  readonly indexPrefix: string;
  /** Index name patterns (without prefix) the function may search, e.g. `movement-events-*`. */
  readonly indexPatterns: readonly string[];
}

export interface ServiceFunctionProps
  extends Omit<
    NodejsFunctionProps,
    | 'runtime'
    | 'architecture'
    | 'entry'
    | 'handler'
    | 'logGroup'
    | 'role'
    | 'code'
    | 'bundling'
    | 'depsLockFilePath'
    | 'projectRoot'
  > {
  /** Path of the handler module (TypeScript); it must export `handler`. */
  readonly entry: string;
  /**
   * How long the function's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when the function is removed.
   * @default RemovalPolicy.DESTROY
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Powertools service name (logger, metrics dimension, tracer).
   * @default SERVICE_NAME (shared/service-identity.ts)
   */
  readonly serviceName?: string;
  /**
   * Powertools metrics namespace.
   * @default METRICS_NAMESPACE (shared/service-identity.ts)
   */
  readonly metricsNamespace?: string;
  /**
   * Powertools log level.
   * @default 'INFO'
   */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
}

/**
 * A Lambda function as every function of this service is built: Node.js 22 on ARM64, X-Ray active
 * tracing, its own log group with a retention, a role that may write only to that log group (no
 * AWS managed policy), a minified ESM esbuild bundle split into chunks, with source maps and the AWS
 * SDK inside, bundled locally (never in Docker; see lib/bundling.ts), and the Powertools environment.
 * `bind*` helpers grant access to a resource and set the variable the handler reads, in one call.
 */
export class ServiceFunction extends NodejsFunction {
  /** The log group the function writes to (also available as `logGroup`). */
  public readonly logs: LogGroup;
  /** The handler module this function's asset is built from. */
  public readonly entry: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { logRetention, logRemovalPolicy, serviceName, metricsNamespace, logLevel, environment, ...rest } = props;
    const logs = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    super(scope, id, {
      memorySize: 1024,
      timeout: Duration.seconds(29),
      ...rest,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      code: esbuildCode(props.entry),
      handler: 'index.handler',
      logGroup: logs,
      role,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: serviceName ?? SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace ?? METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: logLevel ?? 'INFO',
        ...environment,
      },
    });
    this.logs = logs;
    this.entry = props.entry;
    this.node.addValidation({ validate: () => this.checkAsset() });
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logs.logGroupArn] }),
    );
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support only Resource "*" (https://docs.aws.amazon.com/xray/latest/devguide/security_iam_service-with-iam.html).',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'The design card fixes Node.js 22 (nodejs22.x is supported by Lambda); moving to a newer runtime is a deliberate, tested change.',
    });
  }

  /**
   * Lets the function search the OpenSearch domain with SigV4 (HTTP POST to `<index pattern>/_search`
   * of the given patterns, the one request a report makes) and tells it where the domain is.
   */
  public bindOpenSearch(binding: OpenSearchBinding): this {
    return this.grantIndexEndpoints(
      binding,
      SEARCH_REQUESTS,
      'Reports search monthly indices (`<collection>-YYYY.MM`) by pattern; only their _search endpoint is granted.',
    );
  }

  /**
   * What the ingest writer (shared/stores/opensearch/write.ts) sends and nothing more:
   * {@link INGEST_REQUESTS}, `_bulk` and `_mget` on one monthly index, `_search` over the collection's
   * indices. The writer names the index in the path only, and the domain refuses an index named in a
   * `_bulk` or `_mget` body (`rest.action.multi.allow_explicit_index: false`, lib/reporting.ts), so
   * these grants are all the indices it can touch.
   */
  public bindIngestWrites(binding: OpenSearchBinding): this {
    return this.grantIndexEndpoints(
      binding,
      INGEST_REQUESTS,
      'Ingest writes monthly indices (`<collection>-YYYY.MM`), created on first write, by pattern; only their _bulk, _mget and _search endpoints are granted.',
    );
  }

  private grantIndexEndpoints(
    { domain, indexPrefix, indexPatterns }: OpenSearchBinding,
    requests: Readonly<Record<string, HttpMethod>>,
    reason: string,
  ): this {
    const pathsOf = (endpoint: string) => indexPatterns.map((p) => `${indexPrefix}${p}/${endpoint}`);
    for (const method of new Set(Object.values(requests))) {
      const endpoints = Object.keys(requests).filter((e) => requests[e] === method);
      this.addToRolePolicy(
        new PolicyStatement({
          actions: [`es:ESHttp${method[0]}${method.slice(1).toLowerCase()}`],
          resources: endpoints.flatMap(pathsOf).map((path) => `${domain.domainArn}/${path}`),
        }),
      );
    }
    acknowledgeWildcards(this.role!, domain, Object.keys(requests).flatMap(pathsOf), reason);
    this.addOpenSearchEnvironment({ domain, indexPrefix, indexPatterns });
    return this;
  }

  private addOpenSearchEnvironment({ domain, indexPrefix }: OpenSearchBinding): void {
    this.addEnvironment(ENV.openSearchUrl, `https://${domain.domainEndpoint}`);
    this.addEnvironment(ENV.openSearchAuth, 'sigv4');
    this.addEnvironment(ENV.openSearchIndexPrefix, indexPrefix);
  }

  /**
   * What GET /health needs and nothing more: its probe report's search (HTTP POST to
   * `<index pattern>/_search` of the binding's patterns) and one GetItem on the table, and where both are.
   */
  public bindHealthChecks(binding: OpenSearchBinding, table: ITable): this {
    return this.bindOpenSearch(binding).bindTableItemReads(table);
  }

  /** GetItem on the table and nothing else (one item by its keys), and its name in TABLE_NAME. */
  public bindTableItemReads(table: ITable): this {
    table.grant(this, 'dynamodb:GetItem');
    this.addEnvironment(ENV.tableName, table.tableName);
    return this;
  }

  /** Read or read-write access to the table, and its name in TABLE_NAME. */
  public bindTable(table: ITable, access: DataAccess): this {
    if (access === 'read') table.grantReadData(this);
    else table.grantReadWriteData(this);
    this.addEnvironment(ENV.tableName, table.tableName);
    return this;
  }

  /**
   * Permission to invoke the occupancy refresh function, and its name in REFRESH_FUNCTION_NAME: the
   * locations function invokes it asynchronously with a location it just changed.
   */
  public bindRefreshTrigger(refresh: IFunction): this {
    // The function itself, not `grantInvoke`'s `<arn>:*` (its versions and aliases), which is a wildcard the service
    // needs not.
    this.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [refresh.functionArn] }));
    this.addEnvironment(ENV.refreshFunctionName, refresh.functionName);
    return this;
  }

  /**
   * Sending to the webhook delivery queue, and its URL in WEBHOOK_QUEUE_URL: whoever makes or
   * re-queues deliveries (lib/webhooks.ts).
   */
  public bindDeliveryQueue(queue: IQueue): this {
    queue.grantSendMessages(this);
    this.addEnvironment(ENV.webhookQueueUrl, queue.queueUrl);
    return this;
  }

  /**
   * Creating and deleting the user pool's app clients (machine clients), nothing else of the pool, and
   * the pool's id and token endpoint in USER_POOL_ID and TOKEN_URL.
   */
  public bindMachineClientIssuer(userPool: IUserPool, tokenUrl: string): this {
    userPool.grant(this, 'cognito-idp:CreateUserPoolClient', 'cognito-idp:DeleteUserPoolClient');
    this.addEnvironment(ENV.userPoolId, userPool.userPoolId);
    this.addEnvironment(ENV.tokenUrl, tokenUrl);
    return this;
  }

  /** Permission to run the state machine synchronously (StartSyncExecution), and its ARN. */
  public bindSplitStateMachine(stateMachine: IStateMachine): this {
    stateMachine.grantStartSyncExecution(this);
    this.addEnvironment(ENV.splitStateMachineArn, stateMachine.stateMachineArn);
    return this;
  }

  /**
   * Put (worker) or get (query) objects of the slice results bucket, nothing else, and its name.
   * Keys are chosen per execution, hence the object wildcard.
   */
  public bindSliceResults(bucket: IBucket, access: 'read' | 'write'): this {
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [access === 'read' ? 's3:GetObject' : 's3:PutObject'],
        resources: [bucket.arnForObjects('*')],
      }),
    );
    Validations.of(this.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(bucket)}.Arn>/*]`,
      reason:
        'Slice result objects are keyed per execution and slice, unknown in advance; only one object action on this one bucket is granted.',
    });
    this.addEnvironment(ENV.sliceResultsBucket, bucket.bucketName);
    return this;
  }

  /**
   * Synth-time check of what ships: the staged asset must hold this function's own handler and no
   * other service function's. CDK caches staged assets by a key computed from the source folder and
   * the JSON of the bundling options, in which the `tryBundle` function does not appear; without the
   * entry in that key (`extraHash` in {@link esbuildCode}) every function of a folder silently got
   * the first function's bundle. This turns any such mix-up into a failed synth.
   */
  private checkAsset(): string[] {
    if (!Stack.of(this).bundlingRequired) return [];
    const staged = this.node.tryFindChild('Code')?.node.tryFindChild('Stage');
    if (!(staged instanceof AssetStaging)) return [`no staged code asset found`];
    const map = join(staged.absoluteStagedPath, `${BUNDLE_ENTRY_FILE}.map`);
    if (!existsSync(map)) return [`the asset has no ${BUNDLE_ENTRY_FILE}.map to check its handler by`];
    const sources = new Set((JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources);
    const own = projectRelative(this.entry);
    const others = Stack.of(this)
      .node.findAll()
      .filter((c): c is ServiceFunction => c instanceof ServiceFunction && c.entry !== this.entry)
      .map((fn) => projectRelative(fn.entry))
      .filter((entry) => sources.has(entry));
    const errors = sources.has(own) ? [] : [`its asset was not built from ${own}`];
    return [...errors, ...others.map((entry) => `its asset contains another function's handler, ${entry}`)];
  }
}

/**
 * The asset of one handler: esbuild run in this process by lib/bundling.ts (ESM, code splitting,
 * source paths relative to the project), hashed by its output, so the hash is the same on every
 * machine that builds the same sources. The entry's project-relative path is part of the staging
 * cache key (`extraHash`): CDK keys that cache by source folder and bundling options only, and every
 * handler shares both. When the app skips bundling (stack tests), CDK stages a placeholder and never
 * calls the bundler.
 */
function esbuildCode(entry: string): Code {
  // `extraHash` is an AssetStaging prop (FingerprintOptions) that s3 Asset forwards but does not declare.
  const options: AssetOptions & Pick<FingerprintOptions, 'extraHash'> = {
    assetHashType: AssetHashType.OUTPUT,
    extraHash: projectRelative(entry),
    bundling: {
      // Required by the type; never pulled: local bundling either succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      local: {
        tryBundle(outputDir) {
          bundleHandler(entry, outputDir);
          return true;
        },
      },
    },
  };
  return Code.fromAsset(dirname(entry), options);
}

/** The logical id of a construct's CloudFormation resource, as cdk-nag prints it in finding ids. */
export function logicalIdOf(construct: Construct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

/** Acknowledges the IAM5 findings of grants on `<domain ARN>/<path>` for each path, with one reason. */
export function acknowledgeWildcards(
  scope: Construct,
  domain: IDomain,
  paths: readonly string[],
  reason: string,
): void {
  const id = logicalIdOf(domain);
  Validations.of(scope).acknowledge(
    ...paths.map((path) => ({ id: `AwsSolutions-IAM5[Resource::<${id}.Arn>/${path}]`, reason })),
  );
}
