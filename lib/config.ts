import type { Node } from 'constructs';
import { problemTypeBaseError } from '../shared/problem-uri';
import { DEFAULT_RETENTION_MONTHS, MAX_RETENTION_MONTHS } from '../shared/documents/retention';

/**
 * Everything a deployment may vary, read from CDK context (`cdk.json` holds the defaults; override
 * with `-c key=value`). Values given on the command line arrive as strings, so every reader parses.
 */
export interface ServiceConfig {
  /** Deployment stage: names the stack, tags everything; `prod` retains data on delete. */
  readonly stage: string;
  /** Target account and region; both unset = an environment-agnostic stack (the CLI's credentials decide). */
  readonly account?: string;
  readonly region?: string;
  readonly openSearch: {
    /** The profile the node counts, types and volume default from (docs/scale.md); each key of its own overrides. */
    readonly profile: OpenSearchProfileName;
    readonly dataNodes: number;
    readonly instanceType: string;
    readonly masterNodes: number;
    readonly masterInstanceType: string;
    readonly volumeGiB: number;
    readonly indexPrefix: string;
    /** OpenSearch engine version, `major.minor` (e.g. `2.19`); a change is an in-place blue/green upgrade. */
    readonly engineVersion: string;
  };
  readonly lambdaMemoryMiB: number;
  readonly api: {
    readonly throttleRateLimit: number;
    readonly throttleBurstLimit: number;
    /** Throttling of `POST /reports:query` alone: the requests that load the domain. */
    readonly reportThrottle: { readonly rateLimit: number; readonly burstLimit: number };
    /** Throttling of `POST /ingest/{collection}` alone: gateways' batches, apart from people's requests. */
    readonly ingestThrottle: { readonly rateLimit: number; readonly burstLimit: number };
    readonly corsOrigins: readonly string[];
    /** A JWT issuer and audience to trust instead of the Cognito user pool the stack creates. */
    readonly jwt?: { readonly issuer: string; readonly audience: readonly string[] };
    /** The token claim that carries the caller's organization. */
    readonly organizationClaim: string;
    /** The token claim that lists the caller's groups (`admin` makes an admin). @default `cognito:groups` */
    readonly groupsClaim: string;
    /** The token claim that limits the caller to some locations (docs/access.md). @default `custom:locations` */
    readonly locationsClaim: string;
    /**
     * Prefix of the user pool's domain, whose token endpoint machine clients use.
     * @default - `<stack name, lower case>-<account id>`
     */
    readonly cognitoDomainPrefix?: string;
  };
  readonly split: { readonly maxConcurrency: number; readonly logExecutionData: boolean };
  /**
   * Reserved concurrency of the query function and of the slice worker (0: none). Off by default:
   * Lambda keeps at least 100 executions of an account unreserved, and new accounts start with a
   * concurrency quota below that, so any reservation fails their first deploy.
   */
  readonly reservedConcurrency: { readonly query: number; readonly sliceWorker: number };
  readonly reportTermsCap: number;
  /** Days of daily manual OpenSearch snapshots kept (lib/backups.ts). */
  readonly snapshotKeepDays: number;
  readonly logRetentionDays: number;
  /** Months of report data kept besides the current one (shared/documents/retention.ts); 0 keeps everything. */
  readonly retentionMonths: number;
  /**
   * Reports read the rollups where the matcher proves the answer the same, kept by a rebuild every
   * minute (docs/rollups.md). Context `rollups`; false: every report reads the documents and no
   * rebuild runs (writes still mark their grains, so turning it on later stays exact). @default true
   */
  readonly rollups: boolean;
  /** Subscribes this address to the alarm topic when set. */
  readonly alarmEmail?: string;
  /**
   * Where the problem types are documented, when not the API's own `GET /problems`: the `type` of
   * every problem is this and the type's slug (shared/problem-uri.ts).
   * @default - `/problems#`, relative to the API
   */
  readonly problemTypeBase?: string;
}

/**
 * The domain's shape by context `openSearchProfile`; `openSearchDataNodes` and the other keys
 * override any part of it. `small` (the default): one t3.small data node, no replica, no dedicated
 * masters: a stage or a small customer. `production`: three data nodes in three Availability Zones
 * (one replica: lib/reporting.ts, replicasFor), three dedicated cluster managers (the quorum survives
 * a zone), general-purpose Graviton data nodes with 100 GiB each. Its capacity, and the bigger nodes
 * and volumes a billion events a year want (set with the keys of their own), are in docs/scale.md.
 */
export const OPENSEARCH_PROFILES = {
  small: {
    dataNodes: 1,
    instanceType: 't3.small.search',
    masterNodes: 0,
    masterInstanceType: 'm7g.large.search',
    volumeGiB: 10,
  },
  production: {
    dataNodes: 3,
    instanceType: 'm7g.large.search',
    masterNodes: 3,
    masterInstanceType: 'm7g.large.search',
    volumeGiB: 100,
  },
} as const;
export type OpenSearchProfileName = keyof typeof OPENSEARCH_PROFILES;
const isProfile = (name: string): name is OpenSearchProfileName => Object.hasOwn(OPENSEARCH_PROFILES, name);

type Ctx = Pick<Node, 'tryGetContext'>;

const text = (node: Ctx, key: string, fallback: string): string => {
  const v: unknown = node.tryGetContext(key);
  return v === undefined || v === null ? fallback : String(v).trim();
};

const optionalText = (node: Ctx, key: string): string | undefined => {
  const v = text(node, key, '');
  return v === '' ? undefined : v;
};

const int = (node: Ctx, key: string, fallback: number, min: number): number => {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return fallback;
  const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
  if (!Number.isInteger(n) || n < min)
    throw new Error(`Context "${key}" must be an integer ≥ ${min}, got ${JSON.stringify(raw)}.`);
  return n;
};

const bool = (node: Ctx, key: string, fallback: boolean): boolean => {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error(`Context "${key}" must be true or false, got ${JSON.stringify(raw)}.`);
};

/** A list from a JSON array (cdk.json) or a comma-separated string (`-c corsOrigins=a,b`). */
const list = (node: Ctx, key: string): string[] => {
  const raw: unknown = node.tryGetContext(key);
  const items = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(',') : [];
  return items.map((s) => s.trim()).filter((s) => s.length > 0);
};

function retention(node: Ctx): number {
  const months = int(node, 'retentionMonths', DEFAULT_RETENTION_MONTHS, 0);
  if (months > MAX_RETENTION_MONTHS)
    throw new Error(`Context "retentionMonths" must be at most ${MAX_RETENTION_MONTHS}, got ${months}.`);
  return months;
}

/** `major.minor` as Amazon OpenSearch Service names its OpenSearch versions (`OpenSearch_2.19`). */
const engineVersion = (node: Ctx): string => {
  const v = text(node, 'openSearchEngineVersion', '2.19');
  if (!/^[1-9][0-9]?\.[0-9]{1,2}$/.test(v))
    throw new Error(
      `Context "openSearchEngineVersion" must be an OpenSearch version major.minor such as 2.19, got "${v}".`,
    );
  return v;
};

export function readConfig(node: Ctx): ServiceConfig {
  const stage = text(node, 'stage', 'dev');
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage))
    throw new Error(`Context "stage" must match [a-z][a-z0-9-]{0,19}, got "${stage}".`);
  const issuer = optionalText(node, 'jwtIssuer');
  const audience = list(node, 'jwtAudience');
  if (issuer && audience.length === 0)
    throw new Error('Context "jwtIssuer" needs "jwtAudience" (one or more client ids).');
  const alarmEmail = optionalText(node, 'alarmEmail');
  const problemTypeBase = optionalText(node, 'problemTypeBase');
  const baseError = problemTypeBase && problemTypeBaseError(problemTypeBase);
  if (baseError) throw new Error(`Context "problemTypeBase" ${baseError}.`);
  const domainPrefix = optionalText(node, 'cognitoDomainPrefix');
  if (domainPrefix && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(domainPrefix))
    throw new Error(
      `Context "cognitoDomainPrefix" must be lower-case letters, digits and hyphens (at most 63), got "${domainPrefix}".`,
    );
  const account = optionalText(node, 'account');
  const region = optionalText(node, 'region');
  const profileName = text(node, 'openSearchProfile', 'small');
  if (!isProfile(profileName))
    throw new Error(
      `Context "openSearchProfile" must be one of ${Object.keys(OPENSEARCH_PROFILES).join(', ')}, got "${profileName}".`,
    );
  const profile = { name: profileName, ...OPENSEARCH_PROFILES[profileName] };
  return {
    stage,
    ...(account ? { account } : {}),
    ...(region ? { region } : {}),
    openSearch: {
      profile: profile.name,
      dataNodes: int(node, 'openSearchDataNodes', profile.dataNodes, 1),
      instanceType: text(node, 'openSearchInstanceType', profile.instanceType),
      masterNodes: int(node, 'openSearchMasterNodes', profile.masterNodes, 0),
      masterInstanceType: text(node, 'openSearchMasterInstanceType', profile.masterInstanceType),
      volumeGiB: int(node, 'openSearchVolumeGiB', profile.volumeGiB, 10),
      indexPrefix: text(node, 'openSearchIndexPrefix', ''),
      engineVersion: engineVersion(node),
    },
    lambdaMemoryMiB: int(node, 'lambdaMemoryMiB', 1024, 128),
    api: {
      throttleRateLimit: int(node, 'apiThrottleRateLimit', 50, 1),
      throttleBurstLimit: int(node, 'apiThrottleBurstLimit', 100, 1),
      reportThrottle: {
        rateLimit: int(node, 'reportThrottleRateLimit', 10, 1),
        burstLimit: int(node, 'reportThrottleBurstLimit', 20, 1),
      },
      ingestThrottle: {
        rateLimit: int(node, 'ingestThrottleRateLimit', 20, 1),
        burstLimit: int(node, 'ingestThrottleBurstLimit', 40, 1),
      },
      corsOrigins: list(node, 'corsOrigins'),
      ...(issuer ? { jwt: { issuer, audience } } : {}),
      organizationClaim: text(node, 'organizationClaim', 'custom:organizationId'),
      groupsClaim: text(node, 'groupsClaim', 'cognito:groups'),
      locationsClaim: text(node, 'locationsClaim', 'custom:locations'),
      ...(domainPrefix ? { cognitoDomainPrefix: domainPrefix } : {}),
    },
    split: {
      maxConcurrency: int(node, 'splitMaxConcurrency', 10, 1),
      logExecutionData: bool(node, 'splitLogExecutionData', false),
    },
    reservedConcurrency: {
      query: int(node, 'queryReservedConcurrency', 0, 0),
      sliceWorker: int(node, 'sliceWorkerReservedConcurrency', 0, 0),
    },
    reportTermsCap: int(node, 'reportTermsCap', 1000, 1),
    snapshotKeepDays: int(node, 'snapshotKeepDays', 30, 1),
    logRetentionDays: int(node, 'logRetentionDays', 30, 1),
    retentionMonths: retention(node),
    rollups: bool(node, 'rollups', true),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(problemTypeBase ? { problemTypeBase } : {}),
  };
}
