import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Aspects, Aws, CfnOutput, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { EngineVersion } from 'aws-cdk-lib/aws-opensearchservice';
import type { Construct } from 'constructs';
import { GATEWAY_ROUTES, type Route, ROUTES } from '../functions/routes';
import { COLLECTIONS } from '../shared/documents/fields';
import { Api, gatewayRoutePath } from './api';
import { Backups } from './backups';
import { OperationsDashboard } from './dashboard';
import { PROJECT_ROOT } from './bundling';
import { CheckovJustifications } from './checkov';
import type { ServiceConfig } from './config';
import { Explorer } from './explorer';
import { ExplorerSignIn, signInConnectSources } from './sign-in';
import { MachineClients } from './machine-clients';
import { Observability } from './observability';
import { Occupancy } from './occupancy';
import { Reporting } from './reporting';
import { Retention } from './retention';
import { grantDomainPaths, rollupIndexPaths, Rollups } from './rollups';
import { ENV, ServiceFunction } from './service-function';
import { Split } from './split';
import { Webhooks } from './webhooks';
import { SERVICE_NAME } from '../shared/service-identity';
import { SENSOR_COLLECTIONS } from '../shared/sensor-health/activity';
import { rollupIndexNames } from '../shared/stores/opensearch/store';

export type HandlerName =
  | Route['handler']
  | 'refresh-occupancy'
  | 'run-report-slice'
  | 'setup-indices'
  | 'pre-token-generation'
  | 'authorize-ingest'
  | 'apply-retention'
  | 'take-snapshot'
  | 'rebuild-rollups'
  | 'deliver-webhooks';

/** Every Lambda handler module of the service: one per route (functions/routes.ts) and the jobs. */
export const HANDLERS: readonly HandlerName[] = [
  ...new Set(ROUTES.map((r) => r.handler)),
  'refresh-occupancy',
  'run-report-slice',
  'setup-indices',
  'pre-token-generation',
  'authorize-ingest',
  'apply-retention',
  'take-snapshot',
  'rebuild-rollups',
  'deliver-webhooks',
];

const INGEST_ROUTE = ROUTES.find((r) => r.handler === 'ingest')!;

/** Throttling of `GET /health` and `GET /problems`, the routes without a token: each has its own. */
export const HEALTH_THROTTLE = { rateLimit: 5, burstLimit: 10 } as const;

/** Why each route without a token has none (cdk-nag's AwsSolutions-APIG4 is acknowledged with it). */
const PUBLIC_BECAUSE: Readonly<Partial<Record<Route['handler'], string>>> = {
  health:
    "GET /health is public on purpose, for monitors and load balancers: it reads no organization's data, answers only ok or which dependency failed, and has its own small throttle.",
  problems:
    'GET /problems is public on purpose: it is the documentation page the type of every problem points to (RFC 9457), the same static page for everyone, reading no data, with its own small throttle.',
};

/** Why every path's OPTIONS route has no authorizer (GATEWAY_ROUTES in functions/routes.ts). */
const OPTIONS_PUBLIC_BECAUSE =
  'OPTIONS is public on purpose: a CORS preflight never carries credentials (the Fetch standard), so behind the authorizer it would be a 401; the function answers 204 with Allow, reading no data, under its own small throttle.';

/** The module of a handler, relative to the project root. */
export const handlerPath = (name: HandlerName): string => `functions/${name}.ts`;

/** The project root (this file lives in `lib/`). */
export { PROJECT_ROOT };

export interface ServiceStackProps extends StackProps {
  readonly config: ServiceConfig;
  /**
   * Handler modules to use instead of the ones in `functions/` (absolute paths).
   * @default `functions/<name>.ts` under the project root
   */
  readonly entries?: Partial<Record<HandlerName, string>>;
}

/** The handler paths to build, failing with one clear message if any is missing. */
export function resolveEntries(overrides: Partial<Record<HandlerName, string>> = {}): Record<HandlerName, string> {
  const entries = Object.fromEntries(
    HANDLERS.map((name) => [name, overrides[name] ?? resolve(PROJECT_ROOT, handlerPath(name))]),
  ) as Record<HandlerName, string>;
  const missing = Object.values(entries).filter((path) => !existsSync(path));
  if (missing.length > 0) throw new Error(`Handler modules not found: ${missing.join(', ')}`);
  return entries;
}

/**
 * The whole service in one stack. It only wires the constructs: the edge (Api), the report store
 * (Reporting), locations and live occupancy (Occupancy), split reports (Split) and the alarms
 * (Observability); stage and sizes come from the config (CDK context).
 */
export class ServiceStack extends Stack {
  public readonly api: Api;
  public readonly reporting: Reporting;
  public readonly occupancy: Occupancy;
  /** Webhook deliveries: the queue, its dead letters and the delivery function. */
  public readonly webhooks: Webhooks;
  public readonly split: Split;
  public readonly observability: Observability;
  public readonly explorer: Explorer;
  public readonly backups: Backups;
  /** The CloudWatch dashboard `<stack>-operations` (docs/operations.md#dashboard). */
  public readonly dashboard: OperationsDashboard;
  /** Created with the user pool (not with an external issuer). */
  public readonly machineClients?: MachineClients;
  /** The explorer's sign-in with the user pool (not with an external issuer). */
  public readonly signIn?: ExplorerSignIn;
  /** The daily retention job; absent when `retentionMonths` is 0. */
  public readonly retention?: Retention;
  /** The rollups' rebuild job; absent when `rollups` is false. */
  public readonly rollups?: Rollups;
  /**
   * One function per route handler of functions/routes.ts (`manage-ingest-clients` only with the stack's user pool).
   */
  public readonly endpoints: Readonly<Record<Route['handler'], ServiceFunction>>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, { description: `Location and Reporting Service (${props.config.stage})`, ...props });
    const { config } = props;
    const entries = resolveEntries(props.entries);
    const retained = config.stage === 'prod';
    const removalPolicy = retained ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const logRetention = retentionDays(config.logRetentionDays);
    Tags.of(this).add('service', SERVICE_NAME);
    Tags.of(this).add('stage', config.stage);

    this.reporting = new Reporting(this, 'Reporting', {
      setupIndicesEntry: entries['setup-indices'],
      dataNodes: config.openSearch.dataNodes,
      dataNodeInstanceType: config.openSearch.instanceType,
      masterNodes: config.openSearch.masterNodes,
      masterNodeInstanceType: config.openSearch.masterInstanceType,
      volumeGiB: config.openSearch.volumeGiB,
      indexPrefix: config.openSearch.indexPrefix,
      engineVersion: EngineVersion.openSearch(config.openSearch.engineVersion),
      removalPolicy,
      logRetention,
      retentionMonths: config.retentionMonths,
    });
    const query = this.reporting.queryBinding;
    this.backups = new Backups(this, 'Backups', {
      snapshotEntry: entries['take-snapshot'],
      domain: this.reporting.domain,
      indexPrefix: config.openSearch.indexPrefix,
      keepDays: config.snapshotKeepDays,
      removalPolicy,
      logRetention,
    });
    if (config.retentionMonths > 0) {
      this.retention = new Retention(this, 'Retention', {
        entry: entries['apply-retention'],
        domain: this.reporting.domain,
        indexPrefix: config.openSearch.indexPrefix,
        months: config.retentionMonths,
        logRetention,
      });
    }

    if (config.rollups) {
      this.rollups = new Rollups(this, 'Rollups', {
        entry: entries['rebuild-rollups'],
        domain: this.reporting.domain,
        indexPrefix: config.openSearch.indexPrefix,
        logRetention,
      });
    }

    this.occupancy = new Occupancy(this, 'Occupancy', {
      refreshEntry: entries['refresh-occupancy'],
      removalPolicy,
      logRetention,
      memorySize: config.lambdaMemoryMiB,
    });
    this.occupancy.refresh.bindTable(this.occupancy.table, 'readWrite').bindOpenSearch(query);
    this.occupancy.refresh.addEnvironment(ENV.reportTermsCap, String(config.reportTermsCap));
    this.webhooks = new Webhooks(this, 'Webhooks', {
      deliverEntry: entries['deliver-webhooks'],
      table: this.occupancy.table,
      logRetention,
    });
    // The refresh evaluates the alert rules; their webhook sink makes deliveries and queues them.
    this.occupancy.refresh.bindDeliveryQueue(this.webhooks.queue);

    this.split = new Split(this, 'Split', {
      workerEntry: entries['run-report-slice'],
      ...(config.reservedConcurrency.sliceWorker > 0
        ? { workerReservedConcurrency: config.reservedConcurrency.sliceWorker }
        : {}),
      maxConcurrency: config.split.maxConcurrency,
      logExecutionData: config.split.logExecutionData,
      removalPolicy,
      logRetention,
      memorySize: config.lambdaMemoryMiB,
    });
    this.split.worker.bindOpenSearch(query).bindSliceResults(this.split.resultsBucket, 'write');
    this.split.worker.addEnvironment(ENV.reportTermsCap, String(config.reportTermsCap));

    this.api = new Api(this, 'Api', {
      ...(config.api.jwt ? { jwt: config.api.jwt } : {}),
      corsOrigins: config.api.corsOrigins,
      throttleRateLimit: config.api.throttleRateLimit,
      throttleBurstLimit: config.api.throttleBurstLimit,
      logRetention,
      removalPolicy,
    });
    if (this.api.userPool) {
      this.machineClients = new MachineClients(this, 'MachineClients', {
        userPool: this.api.userPool,
        table: this.occupancy.table,
        preTokenGenerationEntry: entries['pre-token-generation'],
        authorizerEntry: entries['authorize-ingest'],
        domainPrefix: config.api.cognitoDomainPrefix ?? `${this.stackName.toLowerCase()}-${Aws.ACCOUNT_ID}`,
        organizationClaim: config.api.organizationClaim,
        logRetention,
      });
    }
    // Before the routes: the explorer's app client joins the authorizer's audience (Api.trustClient).
    const domain = this.machineClients?.domain;
    this.explorer = new Explorer(this, 'Explorer', {
      api: this.api.httpApi,
      removalPolicy,
      logRetention,
      ...(domain ? { connectSources: signInConnectSources(this, domain) } : {}),
    });
    if (this.api.userPool && domain) {
      this.signIn = new ExplorerSignIn(this, 'SignIn', {
        userPool: this.api.userPool,
        domain,
        explorerUrl: this.explorer.url,
      });
      this.api.trustClient(this.signIn.client);
      this.explorer.publishSignIn(this.signIn.config);
    }
    const endpoints: Partial<Record<Route['handler'], ServiceFunction>> = {};
    for (const route of ROUTES) {
      // Gateways through the API need the stack's user pool (Cognito app clients): not with an external issuer.
      if (route.handler === 'manage-ingest-clients' && !this.machineClients) continue;
      const id = pascalCase(route.handler);
      endpoints[route.handler] ??= new ServiceFunction(this, id, {
        entry: entries[route.handler],
        description: `${route.method} ${route.path}`,
        memorySize: config.lambdaMemoryMiB,
        logRetention,
        environment: {
          [ENV.organizationClaim]: config.api.organizationClaim,
          [ENV.groupsClaim]: config.api.groupsClaim,
          [ENV.locationsClaim]: config.api.locationsClaim,
          ...(config.problemTypeBase ? { [ENV.problemTypeBase]: config.problemTypeBase } : {}),
        },
        ...(route.handler === 'query-report' && config.reservedConcurrency.query > 0
          ? { reservedConcurrentExecutions: config.reservedConcurrency.query }
          : {}),
      });
    }
    // Every route, and an ANY and an OPTIONS route per path to the same function (whose route guard
    // answers HEAD, OPTIONS, and 405 with Allow): see GATEWAY_ROUTES.
    for (const route of GATEWAY_ROUTES) {
      if (!endpoints[route.handler]) continue;
      const id = pascalCase(route.handler);
      const publicBecause =
        route.method === 'OPTIONS' ? OPTIONS_PUBLIC_BECAUSE : route.public ? PUBLIC_BECAUSE[route.handler] : undefined;
      if (route.public && !publicBecause)
        throw new Error(`${route.method} ${route.path} is public: say why in PUBLIC_BECAUSE.`);
      // Machine clients' tokens are checked by their own authorizer (lib/machine-clients.ts) when the
      // stack has the user pool, on every route of the ingest path (its ANY route answers 405 to them).
      const authorizer = route.handler === 'ingest' ? this.machineClients?.authorizer : undefined;
      this.api.addRoute(
        HttpMethod[route.method],
        route.path,
        endpoints[route.handler]!,
        `${id}${route.method}`,
        publicBecause ? { publicBecause } : authorizer ? { authorizer } : {},
      );
      // Anyone may call a public route: its own small rate bounds what it costs.
      if (publicBecause) this.api.throttleRoute(HttpMethod[route.method], route.path, HEALTH_THROTTLE);
    }
    this.endpoints = endpoints as Record<Route['handler'], ServiceFunction>;
    // The administration API: locations (one transaction per write, the refresh invoked at once) and gateways.
    this.endpoints['manage-locations']
      .bindTable(this.occupancy.table, 'readWrite')
      .bindRefreshTrigger(this.occupancy.refresh);
    // Webhook endpoints and their deliveries live in the same table (secrets encrypted at rest with it).
    this.endpoints['manage-webhook-endpoints']
      .bindTable(this.occupancy.table, 'readWrite')
      .bindDeliveryQueue(this.webhooks.queue);
    if (this.machineClients && this.api.userPool) {
      this.endpoints['manage-ingest-clients']
        .bindTable(this.occupancy.table, 'readWrite')
        .bindMachineClientIssuer(this.api.userPool, this.machineClients.tokenUrl);
    }
    const reports = ROUTES.find((r) => r.handler === 'query-report')!;
    this.api.throttleRoute(HttpMethod[reports.method], reports.path, config.api.reportThrottle);
    // Gateways' batches have a budget of their own, so a backfill cannot starve people's requests.
    this.api.throttleRoute(HttpMethod[INGEST_ROUTE.method], INGEST_ROUTE.path, config.api.ingestThrottle);
    this.endpoints['query-report']
      .bindOpenSearch(query)
      .bindSplitStateMachine(this.split.stateMachine)
      .bindSliceResults(this.split.resultsBucket, 'read')
      .addEnvironment(ENV.reportTermsCap, String(config.reportTermsCap));
    this.endpoints.health.bindHealthChecks(this.reporting.healthBinding, this.occupancy.table);
    // Ingest writes documents into the monthly indices, reads the organization's locations and keeps
    // Idempotency-Key records in the table.
    this.endpoints.ingest.bindIngestWrites(query).bindTable(this.occupancy.table, 'readWrite');
    // ...and marks the grains it wrote for the rollups' rebuild (docs/rollups.md).
    const rollupPaths = rollupIndexPaths(config.openSearch.indexPrefix);
    grantDomainPaths(
      this.endpoints.ingest,
      this.reporting.domain,
      { Put: [`${rollupPaths.dirty}/_bulk`] },
      'Ingest marks grains in the rollup bookkeeping index only.',
    );
    // Reports (and the overview's counts) read the rollup rows and the watermark beside the monthly indices, when
    // rollups are on.
    if (config.rollups) {
      for (const fn of [this.endpoints['query-report'], this.split.worker, this.endpoints['sites-overview']]) {
        grantDomainPaths(
          fn,
          this.reporting.domain,
          { Post: [...rollupPaths.levels, rollupPaths.dirty].map((p) => `${p}/_search`) },
          'Reports search the rollup indices and the bookkeeping index by name.',
        );
        fn.addEnvironment(ENV.rollups, 'on');
      }
    }
    this.endpoints['list-locations'].bindTable(this.occupancy.table, 'read');
    // Alert rules live in the table beside the locations they watch (shared/alerts/store.ts).
    this.endpoints['manage-alert-rules'].bindTable(this.occupancy.table, 'readWrite');
    // Live occupancy reads the cache; filter=health counts the cameras' and lots' events through the
    // report engine: their monthly indices and, with rollups on, their rollup rows (nothing else).
    const live = this.endpoints['live-insights'].bindTable(this.occupancy.table, 'read');
    live.bindOpenSearch(this.reporting.sensorHealthBinding);
    if (config.rollups) {
      const paths = SENSOR_COLLECTIONS.flatMap((c) => rollupIndexNames(config.openSearch.indexPrefix, c));
      grantDomainPaths(
        live,
        this.reporting.domain,
        { Post: [...paths, rollupPaths.dirty].map((p) => `${p}/_search`) },
        'Sensor health searches the rollup rows of the cameras and lots and the bookkeeping index by name.',
      );
      live.addEnvironment(ENV.rollups, 'on');
    }
    // The history reads the location's groups and counts crossings through the report engine.
    this.endpoints['occupancy-history'].bindTable(this.occupancy.table, 'read').bindOpenSearch(query);
    this.endpoints['occupancy-history'].addEnvironment(ENV.reportTermsCap, String(config.reportTermsCap));
    // The overview reads every location's groups and cache entries, and counts through the report engine.
    this.endpoints['sites-overview'].bindTable(this.occupancy.table, 'read').bindOpenSearch(query);
    this.endpoints['sites-overview'].addEnvironment(ENV.reportTermsCap, String(config.reportTermsCap));

    const watched = {
      ...Object.fromEntries(Object.entries(this.endpoints).map(([name, fn]) => [pascalCase(name), fn])),
      RunReportSlice: this.split.worker,
      DeliverWebhooks: this.webhooks.deliver,
      TakeSnapshot: this.backups.snapshotFunction,
      ...(this.retention ? { ApplyRetention: this.retention.fn } : {}),
      ...(this.rollups ? { RebuildRollups: this.rollups.fn } : {}),
      ...(this.machineClients ? { IngestAuthorizer: this.machineClients.authorizerFunction } : {}),
    };
    this.observability = new Observability(this, 'Observability', {
      api: this.api.httpApi,
      accessLogs: this.api.accessLogs,
      functions: watched,
      refresh: { fn: this.occupancy.refresh, deadLetterQueue: this.occupancy.deadLetterQueue },
      webhookDeadLetters: this.webhooks.deadLetterQueue,
      splitStateMachine: this.split.stateMachine,
      domain: this.reporting.domain,
      ingest: { collections: COLLECTIONS, routeKey: `${INGEST_ROUTE.method} ${gatewayRoutePath(INGEST_ROUTE.path)}` },
      volumeGiB: config.openSearch.volumeGiB,
      ...(config.alarmEmail ? { alarmEmail: config.alarmEmail } : {}),
    });
    this.dashboard = new OperationsDashboard(this, 'Operations', {
      api: this.api.httpApi,
      accessLogs: this.api.accessLogs,
      functions: { ...watched, RefreshOccupancy: this.occupancy.refresh },
      splitStateMachine: this.split.stateMachine,
      domain: this.reporting.domain,
      ingestCollections: COLLECTIONS,
    });

    this.outputs(config);
    Aspects.of(this).add(new CheckovJustifications());
  }

  private outputs(config: ServiceConfig): void {
    const out = (id: string, value: string, description: string) => new CfnOutput(this, id, { value, description });
    out('ApiUrl', this.api.url, 'Base URL of the HTTP API');
    out('Region', this.region, 'Region of the stack');
    out('ExplorerUrl', this.explorer.url, 'The report explorer (the API is forwarded under the same origin)');
    if (this.api.userPool && this.api.userPoolClient) {
      out('UserPoolId', this.api.userPool.userPoolId, 'Cognito user pool (create users here)');
      out('UserPoolClientId', this.api.userPoolClient.userPoolClientId, 'App client id (audience of the ID tokens)');
    }
    if (this.signIn)
      out(
        'ExplorerClientId',
        this.signIn.client.userPoolClientId,
        'App client of the explorer’s sign-in (code flow with PKCE; callback and sign-out URL: ExplorerUrl)',
      );
    if (this.machineClients)
      out(
        'TokenUrl',
        this.machineClients.tokenUrl,
        'Token endpoint of machine clients (client credentials, scope lrs/ingest)',
      );
    out(
      'OpenSearchEndpoint',
      `https://${this.reporting.domain.domainEndpoint}`,
      'OpenSearch domain endpoint (SigV4, service es)',
    );
    out('OpenSearchIndexPrefix', config.openSearch.indexPrefix || '(none)', 'Prefix of every index name');
    out('TableName', this.occupancy.table.tableName, 'DynamoDB table of locations, sensor groups and occupancy');
    out('SplitStateMachineArn', this.split.stateMachine.stateMachineArn, 'Express state machine of split reports');
    out('SnapshotBucket', this.backups.bucket.bucketName, 'S3 bucket of the manual OpenSearch snapshot repository');
    out(
      'SnapshotRoleArn',
      this.backups.snapshotRole.roleArn,
      'Role OpenSearch assumes to use the snapshot bucket (pass it when registering the repository)',
    );
    out('AlarmTopicArn', this.observability.topic.topicArn, 'SNS topic every alarm notifies');
  }
}

const pascalCase = (kebab: string): string => kebab.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

function retentionDays(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter((v): v is RetentionDays => typeof v === 'number');
  if (!allowed.includes(days as RetentionDays))
    throw new Error(`logRetentionDays must be one of ${allowed.join(', ')}, got ${days}.`);
  return days as RetentionDays;
}
