/**
 * Conformance of the two report engines: one corpus of requests, each answered through answerReport
 * (plan → engine → shape → render) by OpenSearch and by DuckDB over the same fixture documents
 * (test/fixtures/documents.ts). The answers must be identical byte for byte (status, the headers,
 * the body); errors identical as problem documents. Every case also carries its answer worked out by
 * hand, so that both engines agreeing on a wrong answer does not pass. DuckDB answers through the
 * local server's report cache, as under `npm start`.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
import { AppError } from '#shared/errors';
import type { ReportEngine } from '#shared/report/engines/engine';
import { reportHeaders } from '#commons/http/report-headers';
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

const CASES: readonly ConformanceCase[] = [...HISTOGRAM_CASES, ...AGGREGATION_CASES, ...PROFILE_CASES, ...PERCENTILE_CASES, ...COMPARISON_CASES, ...ERROR_CASES];

const client = testClient();
const prefix = uniquePrefix('conformance');
let duckdb: DuckDBInstance;

beforeAll(async () => {
  duckdb = await loadFixtureEngines(client, prefix);
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
    const answer = await answerReport(c.body, { organizationId: c.organizationId ?? ORG_A }, engine, c.accept ?? 'application/json');
    return { status: 200, headers: reportHeaders(answer), body: answer.body };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { status: e.status, headers: { ...e.headers }, body: JSON.stringify(e.toProblem()) };
  }
}

/** DuckDB as `npm start` serves it: behind the local report cache, which must not change an answer. */
function enginesFor(c: ConformanceCase): { opensearch: ReportEngine; duckdb: ReportEngine } {
  const engines = fixtureEngines(client, prefix, duckdb, c.termsCap === undefined ? undefined : { termsCap: c.termsCap });
  return { opensearch: engines.opensearch, duckdb: new CachedReportEngine(engines.duckdb) };
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
    // Assess: the same answer, and the answer the case is about (not, say, the same 400 for a typo)
    expect(fromDuckDb).toEqual(fromOpenSearch);
    assessExpected(fromOpenSearch, c.expected, c.accept === 'text/csv');
  });
});
