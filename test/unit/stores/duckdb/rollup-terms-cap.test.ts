import type { DuckDBInstance } from '@duckdb/node-api';
import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { rebuildRollups } from '#shared/stores/duckdb/rollups/rebuild';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { DEFAULT_LIMITS, type EngineResult, type ReportEngine } from '#shared/stores/store';
import { answerReport } from '#shared/report/query-report';
import { ORG_A } from '../../../fixtures/documents';

/**
 * Rollups rank the terms keys of each bucket their own way (compiler.ts, rowNumber: no PARTITION BY
 * over a few thousand rollup rows), so the keys the engine's terms cap keeps and cuts must be the
 * documents' ones: two UTC days of events in two months (two shards), daily × label (× crossed line
 * end) and by label alone, with 1 and 2 keys kept.
 */
const event = (month: number, day: number, minute: number, label: string, end?: 'A' | 'B') => ({
  organizationId: ORG_A,
  locationId: 'loc-berlin',
  timestamp: new Date(Date.UTC(2024, month, day, 10, minute)).toISOString(),
  trackingCameraId: 'cam-1',
  label,
  ...(end ? { crossedPaths: [{ id: 'line-north', end }] } : {}),
});
const EVENTS = [
  event(1, 29, 0, 'bike', 'B'),
  event(1, 29, 1, 'car', 'A'),
  event(1, 29, 2, 'car', 'B'),
  event(1, 29, 3, 'person', 'A'),
  event(1, 29, 4, 'truck'),
  event(2, 1, 0, 'car', 'B'),
  event(2, 1, 1, 'truck', 'A'),
  event(2, 1, 2, 'truck', 'A'),
];
const range = { type: 'range', field: 'timestamp', from: '2024-02-29T00:00:00Z', to: '2024-03-02T00:00:00Z' };
const byLabel = {
  source: 'movementEvents',
  filters: [range],
  aggregations: [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'terms', field: 'label' },
  ],
};
const byLabelAndEnd = {
  ...byLabel,
  aggregations: [
    ...byLabel.aggregations,
    { type: 'nested', path: 'crossedPaths' },
    { type: 'terms', field: 'crossedPaths.end' },
  ],
};
const byLabelAlone = { ...byLabel, aggregations: [{ type: 'terms', field: 'label' }] };
const [FEB_29, MAR_1] = ['2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z'];

let db: DuckDBInstance;

beforeAll(async () => {
  db = await openDuckDb(':memory:');
  await ingestDocuments(
    db,
    'movementEvents',
    EVENTS.map((e, i) => parseDocument('movementEvents', e, `/${i}`)),
  );
  await rebuildRollups(db);
});

afterAll(() => db?.closeSync());

/** The JSON answer from rollups (checked to be read from them) and from the documents alone. */
async function answers(body: unknown, termsCap: number): Promise<{ rollup: string; raw: string; truncated: boolean }> {
  const limits = { ...DEFAULT_LIMITS, termsCap };
  const sources: (string | undefined)[] = [];
  const rollups = new DuckDbEngine(db, { rollups: true, limits });
  const watched: ReportEngine = {
    maxBuckets: rollups.maxBuckets,
    run: async (...a) => ((r: EngineResult) => (sources.push(r.source), r))(await rollups.run(...a)),
  };
  const rollup = await answerReport(body, { organizationId: ORG_A }, watched, 'application/json');
  const raw = await answerReport(body, { organizationId: ORG_A }, new DuckDbEngine(db, { limits }), 'application/json');
  expect(sources).toEqual(['rollup']);
  expect(rollup.truncated).toBe(raw.truncated);
  return { rollup: rollup.body, raw: raw.body, truncated: rollup.truncated };
}

test.each([
  // Keys in binary order per day: February 29 bike, car, person, truck; March 1 car, truck
  [
    1,
    'daily × label',
    byLabel,
    [
      { timestamp: FEB_29, bike: 1 },
      { timestamp: MAR_1, car: 1 },
    ],
  ],
  [
    2,
    'daily × label',
    byLabel,
    [
      { timestamp: FEB_29, bike: 1, car: 2 },
      { timestamp: MAR_1, car: 1, truck: 2 },
    ],
  ],
  [
    1,
    'daily × label × end',
    byLabelAndEnd,
    [
      { timestamp: FEB_29, 'bike B': 1 },
      { timestamp: MAR_1, 'car B': 1 },
    ],
  ],
  [
    2,
    'daily × label × end',
    byLabelAndEnd,
    [
      { timestamp: FEB_29, 'bike B': 1, 'car A': 1, 'car B': 1 },
      { timestamp: MAR_1, 'car B': 1, 'truck A': 2 },
    ],
  ],
  [1, 'label', byLabelAlone, { bike: 1 }],
  [2, 'label', byLabelAlone, { bike: 1, car: 3 }],
])(
  'with %i keys kept per bucket, %s from rollups keeps and cuts the keys the documents do',
  async (termsCap, _, body, expected) => {
    const { rollup, raw, truncated } = await answers(body, termsCap);
    expect(rollup).toBe(raw);
    expect(JSON.parse(rollup)).toEqual(expected);
    expect(truncated).toBe(true);
  },
);
