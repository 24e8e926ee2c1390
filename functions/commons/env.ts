/**
 * The environment variables the functions read, by one name each: the stack sets them
 * (lib/service-function.ts `bind*`, lib/stack.ts) and functions/commons reads them, so the two
 * agree by construction. Lambda's and Powertools' own variables (AWS_REGION, POWERTOOLS_*) are
 * not listed.
 */
export const ENV = {
  /** `https://<domain endpoint>` of the OpenSearch domain. */
  openSearchUrl: 'OPENSEARCH_URL',
  /** `sigv4`: sign every request with the function's role (service `es`, region from AWS_REGION); `none` locally. */
  openSearchAuth: 'OPENSEARCH_AUTH',
  openSearchIndexPrefix: 'OPENSEARCH_INDEX_PREFIX',
  /** `true`/`false`: OpenSearch's shard request cache for report searches (default: the index's setting). */
  openSearchRequestCache: 'OPENSEARCH_REQUEST_CACHE',
  /**
   * The domain's search.max_buckets, when not OpenSearch's default (65,535): reports above it are refused before
   * searching.
   */
  openSearchMaxBuckets: 'OPENSEARCH_MAX_BUCKETS',
  /** Most keys one terms aggregation returns. */
  reportTermsCap: 'REPORT_TERMS_CAP',
  /**
   * Issuer (`iss`) of machine clients' access tokens: the Cognito user pool's provider URL; its JWKS is
   * `<issuer>/.well-known/jwks.json`.
   */
  jwtIssuer: 'JWT_ISSUER',
  /** The stack's Cognito user pool, where `POST /ingest-clients` creates machine clients. */
  userPoolId: 'USER_POOL_ID',
  /**
   * The token endpoint of machine clients (the pool domain's `/oauth2/token`), told to a client when it is registered.
   */
  tokenUrl: 'TOKEN_URL',
  /** The token claim that carries the caller's organization. */
  organizationClaim: 'ORGANIZATION_CLAIM',
  /** The token claim that lists the caller's groups (roles). */
  groupsClaim: 'GROUPS_CLAIM',
  /** The token claim that limits the caller to some locations. */
  locationsClaim: 'LOCATIONS_CLAIM',
  /**
   * Seconds between occupancy refreshes, when not the 5 minutes of the deployed schedule (`npm start --
   * --refresh-seconds N`).
   */
  refreshSeconds: 'OCCUPANCY_REFRESH_SECONDS',
  /** The occupancy refresh function, invoked asynchronously with a location after a change to it. */
  refreshFunctionName: 'REFRESH_FUNCTION_NAME',
  /**
   * The SQS queue of webhook deliveries to attempt (lib/webhooks.ts); unset: none (the local server's timer attempts
   * them).
   */
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  /**
   * `true`: deliveries may go over http to this machine's loopback (the stack test's receiver); the stack never sets
   * it.
   */
  webhookAllowLoopback: 'WEBHOOK_ALLOW_LOOPBACK',
  /** The one DynamoDB table: locations, sensor groups, occupancy cache. */
  tableName: 'TABLE_NAME',
  /** A local DynamoDB endpoint (DynamoDB Local); unset in AWS. */
  dynamoDbEndpoint: 'DYNAMODB_ENDPOINT',
  /** ARN of the Express state machine that runs report slices; unset: slices run in-process. */
  splitStateMachineArn: 'SPLIT_STATE_MACHINE_ARN',
  /** Bucket for slice results too large for the 256 KiB state payload. */
  sliceResultsBucket: 'SLICE_RESULTS_BUCKET',
  /** Slices run at once in-process (locally). */
  splitConcurrency: 'REPORT_SPLIT_CONCURRENCY',
  /** Most slices one split report may have. */
  maxSlices: 'REPORT_MAX_SLICES',
  /** `on`: reports read the rollups where the matcher proves the answer the same (docs/rollups.md); else raw. */
  rollups: 'REPORT_ROLLUPS',
  /**
   * Months of documents kept (shared/documents/retention.ts): the current month and this many before it; 0 keeps all.
   */
  retentionMonths: 'RETENTION_MONTHS',
  /** Where the problem types are documented: the `type` of a problem is this and its slug; unset: `/problems#`. */
  problemTypeBase: 'PROBLEM_TYPE_BASE',
  /** Name of the manual snapshot repository (lib/backups.ts). */
  snapshotRepository: 'SNAPSHOT_REPOSITORY',
  /** S3 bucket of the manual snapshot repository. */
  snapshotBucket: 'SNAPSHOT_BUCKET',
  /** Role OpenSearch assumes to write the bucket (passed when registering the repository). */
  snapshotRoleArn: 'SNAPSHOT_ROLE_ARN',
  /** Days of daily snapshots kept. */
  snapshotKeepDays: 'SNAPSHOT_KEEP_DAYS',
} as const;
