/**
 * Conformance of the two report engines: one corpus of requests, each answered through answerReport
 * (plan → engine → shape → render) by OpenSearch and by DuckDB over the same fixture documents
 * (test/fixtures/documents.ts). The answers must be identical byte for byte (status, the headers,
 * the body); errors identical as problem documents. Every case also carries its answer worked out by
 * hand, so that both engines agreeing on a wrong answer does not pass. DuckDB answers through the
 * local server's report cache, as under `npm start`. Each engine answers each case a second time with
 * its rollups rebuilt and on: the same bytes (only `Server-Timing` says which rows served it), and a
 * known set of cases must be served from each engine's rollup rows, so that this cannot silently read raw.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
import { AppError } from '#shared/errors';
import type { ReportEngine } from '#shared/stores/store';
import { reportHeaders } from '#commons/http/report-headers';
import { rebuildRollups as rebuildDuckDbRollups } from '#shared/stores/duckdb/rollups/rebuild';
import { rebuildRollups } from '#shared/stores/opensearch/rollups/rebuild';
import { answerReport } from '#shared/report/query-report';
import { CachedReportEngine } from '../../../bin/local/report-cache';
import { ORG_A } from '../../fixtures/documents';
import { fixtureEngines, loadFixtureEngines } from '../support/fixture-engines';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';
import { AGGREGATION_CASES, ERROR_CASES } from './corpus/aggregations';
import type { ConformanceCase, Expected } from './corpus/case';
import { COMPARISON_CASES } from './corpus/comparisons';
import { HISTOGRAM_CASES } from './corpus/histograms';
import { PERCENTILE_CASES } from './corpus/percentiles';
import { PROFILE_CASES } from './corpus/profiles';

/**
 * Cases OpenSearch must serve from its rollup rows (45 of the corpus were when this was written):
 * DST days and overlaps, :30 zones, calendar months, crossings by line and direction, terms caps,
 * filters, profiles, comparisons.
 */
const SERVED_FROM_ROLLUPS = [
  'counts events per Berlin day across the spring DST change, over the whole range',
  'aligns 90-minute buckets to local time in Berlin, the bucket over the autumn overlap 2.5 hours long',
  'counts me-04 at 00:59:59.999 in a range that ends at 00:59:59.9991, the end rounded up to the millisecond',
  'counts calendar months in New York from the first to the last non-empty month',
  'aligns 30-minute buckets in Kolkata (UTC+05:30)',
  'makes a 23-hour day of the spring gap in New York',
  'names Berlin crossings per day by line and direction, direction last, for one location',
  'takes an hourly histogram with named filters exactly up to the bucket limit',
  'keeps the two smallest labels under termsCap 2 and says the answer was truncated',
  'counts nested crossings, not events',
  'gives only the count of total values per lot',
  'counts two overlapping filters stages by label, each event in every bucket it matches',
  'counts both 02:00 hours of the Berlin autumn DST day in one bucket, by label',
  'profiles every event of org A by weekday in Asia/Kolkata, in ISO order from Monday',
  'compares Kolkata days with the days before: buckets start at 18:30Z',
];

const CASES: readonly ConformanceCase[] = [
  ...HISTOGRAM_CASES,
  ...AGGREGATION_CASES,
  ...PROFILE_CASES,
  ...PERCENTILE_CASES,
  ...COMPARISON_CASES,
  ...ERROR_CASES,
];

const client = testClient();
const prefix = uniquePrefix('conformance');
let duckdb: DuckDBInstance;

beforeAll(async () => {
  duckdb = await loadFixtureEngines(client, prefix);
  await rebuildRollups(client, prefix);
  await rebuildDuckDbRollups(duckdb);
});

afterAll(async () => {
  await deleteIndices(client, prefix);
  duckdb?.closeSync();
  await client.close();
});

/** What a client would see: status, headers and body; errors as their problem document. */
interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

async function answer(engine: ReportEngine, c: ConformanceCase): Promise<Answer> {
  try {
    // The answer's facts as the edge sends them (the query function's own header mapping).
    const answer = await answerReport(
      c.body,
      { organizationId: c.organizationId ?? ORG_A },
      engine,
      c.accept ?? 'application/json',
    );
    return { status: 200, headers: reportHeaders(answer), body: answer.body };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { status: e.status, headers: { ...e.headers }, body: JSON.stringify(e.toProblem()) };
  }
}

/** DuckDB as `npm start` serves it: behind the local report cache, which must not change an answer. */
function enginesFor(c: ConformanceCase): ReturnType<typeof fixtureEngines> {
  const engines = fixtureEngines(
    client,
    prefix,
    duckdb,
    c.termsCap === undefined ? undefined : { termsCap: c.termsCap },
  );
  return { ...engines, duckdb: new CachedReportEngine(engines.duckdb) };
}

function assessExpected(actual: Answer, expected: Expected, csv: boolean): void {
  expect(actual.status).toBe(expected.status);
  for (const [name, value] of Object.entries(expected.headers ?? {})) expect(actual.headers[name]).toBe(value);
  if (expected.body !== undefined) {
    if (csv) expect(actual.body).toBe(expected.body);
    else expect(JSON.parse(actual.body)).toEqual(expected.body);
  }
  if (expected.rows !== undefined) expect(JSON.parse(actual.body)).toHaveLength(expected.rows);
  if (expected.span !== undefined) {
    const rows = JSON.parse(actual.body) as { timestamp: string }[];
    expect([rows[0]?.timestamp, rows.at(-1)?.timestamp]).toEqual(expected.span);
  }
  if (expected.nonEmpty !== undefined) {
    const rows = JSON.parse(actual.body) as Record<string, unknown>[];
    expect(rows.filter((row) => Object.keys(row).length > 1)).toEqual(expected.nonEmpty);
  }
  if (expected.type !== undefined) expect(JSON.parse(actual.body).type).toBe(expected.type);
}

test('the corpus has at least 40 requests, each named once', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(40);
  expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
});

describe('both engines answer byte for byte alike', () => {
  test.each(CASES)('$name', async (c) => {
    // Prepare
    const engines = enginesFor(c);
    // Act
    const fromOpenSearch = await answer(engines.opensearch, c);
    const fromDuckDb = await answer(engines.duckdb, c);
    const withRollups = await answer(engines.opensearchRollups, c);
    const { 'Server-Timing': source, ...headers } = withRollups.headers;
    const fromRollups = { ...withRollups, headers };
    const duckDbWithRollups = await answer(engines.duckdbRollups, c);
    const { 'Server-Timing': duckDbSource, ...duckDbHeaders } = duckDbWithRollups.headers;
    // Assess: the same answer, and the answer the case is about (not, say, the same 400 for a typo)
    expect(fromDuckDb).toEqual(fromOpenSearch);
    expect(fromRollups).toEqual(fromOpenSearch);
    expect({ ...duckDbWithRollups, headers: duckDbHeaders }).toEqual(fromOpenSearch);
    assessExpected(fromOpenSearch, c.expected, c.accept === 'text/csv');
    if (source?.startsWith('source;desc="rollup"')) fromRollupRows.push(c.name);
    if (duckDbSource?.startsWith('source;desc="rollup"')) fromDuckDbRollupRows.push(c.name);
  });
});

/** The cases each engine answered from its rollup rows (the matcher allows them, and the rows are read). */
const fromRollupRows: string[] = [];
const fromDuckDbRollupRows: string[] = [];

test('with rollups on, the matched cases are served from the rollup rows', () => {
  expect(fromRollupRows).toEqual(expect.arrayContaining(SERVED_FROM_ROLLUPS));
  expect(fromDuckDbRollupRows).toEqual(expect.arrayContaining(SERVED_FROM_ROLLUPS));
});
