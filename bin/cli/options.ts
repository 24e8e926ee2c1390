import { InvalidArgumentError, Option } from 'commander';

/**
 * The options several CLIs share, with one spelling and one description each, so that the same
 * thing is asked for the same way everywhere (`npm start`, seed, ingest, import-locations).
 * Each takes its default where the CLI decides it (an environment variable, or none).
 */
export const cliOptions = {
  dataDir: (fallback = process.env.DATA_DIR ?? '.data') =>
    new Option(
      '--data-dir <path>',
      'local data folder: DuckDB, the location table, the development key (env DATA_DIR)',
    ).default(fallback),
  opensearchUrl: () =>
    new Option(
      '--opensearch-url <url>',
      'an OpenSearch cluster you run, e.g. http://localhost:9200; repeat it or give a comma-separated list for several of its nodes (a request fails over to the next)',
    )
      .argParser(httpUrls)
      .conflicts('domain'),
  domain: () =>
    new Option(
      '--domain <name>',
      'an Amazon OpenSearch Service domain: its endpoint from DescribeDomain, requests signed with SigV4',
    ).conflicts('opensearchUrl'),
  indexPrefix: (fallback = process.env.OPENSEARCH_INDEX_PREFIX ?? '') =>
    new Option('--index-prefix <prefix>', 'OpenSearch index name prefix (env OPENSEARCH_INDEX_PREFIX)').default(
      fallback,
    ),
  region: (fallback = process.env.AWS_REGION) =>
    new Option('--region <region>', 'AWS region (env AWS_REGION)').default(fallback),
  table: (fallback?: string, description = 'DynamoDB table of locations, sensor groups and occupancy') =>
    new Option('--table <name>', description).default(fallback),
  api: (description = "base URL of the API (the stack output ApiUrl, or npm start's http://localhost:3000)") =>
    new Option('--api <url>', description).argParser(httpUrl),
  token: (env: string, description = 'bearer token') => new Option('--token <jwt>', description).env(env),
  dynamodbEndpoint: (fallback?: string) =>
    new Option(
      '--dynamodb-endpoint <url>',
      'a DynamoDB you run (DynamoDB Local), e.g. http://localhost:8000; AWS when absent',
    )
      .argParser(httpUrl)
      .default(fallback),
} as const;

/** What {@link cliOptions} parse to, under commander's names for them. */
export interface DataDirFlags {
  readonly dataDir: string;
}
export interface OpenSearchCliFlags {
  /** One URL, or several nodes' comma-separated. */
  readonly opensearchUrl?: string;
  readonly domain?: string;
  readonly region?: string;
  readonly indexPrefix: string;
}
export interface DynamoCliFlags {
  readonly table?: string;
  readonly dynamodbEndpoint?: string;
  readonly region?: string;
}

/** A whole number from `min` to `max`, for an option's parser. */
export const wholeNumber =
  (min: number, max: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return n;
  };

/**
 * Node URLs, repeated or comma-separated, each an http(s) URL: kept as one comma-separated list in
 * the order given, without repeats (OPENSEARCH_URL's form, functions/commons/clients/opensearch-client.ts).
 */
function httpUrls(value: string, previous: string | undefined): string {
  const urls = [...(previous ?? '').split(','), ...value.split(',')]
    .map((url) => url.trim())
    .filter((url) => url !== '');
  if (urls.length === 0) throw new InvalidArgumentError('must be an http(s) URL');
  return [...new Set(urls.map(httpUrl))].join(',');
}

function httpUrl(value: string): string {
  if (!/^https?:\/\/[^/\s]+/.test(value)) throw new InvalidArgumentError('must be an http(s) URL');
  return value.replace(/\/+$/, '');
}
