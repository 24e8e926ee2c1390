import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { EngineResult, ReportEngine } from '#shared/stores/store';
import { MAX_RESPONSE_BODY_BYTES } from '#shared/report/query-report';
import { createQueryReportHandler } from '../../../functions/query-report';
import { ENGINES, type LoadedEngine } from '../split/engines';
import { movementEvents } from '../report/fixtures';
import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';
import type { DocumentInput } from '#shared/documents/documents';

/**
 * Compression of POST /reports:query by Accept-Encoding, through the real handler on both engines,
 * and the response ceiling measured on the body as it is sent.
 */
const docs = movementEvents as unknown as DocumentInput<'movementEvents'>[];
const MARCH = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-04-01T00:00:00Z' };
/** Hourly over March by label: 744 buckets, org-a's five events in four hours. */
const hourly = {
  filters: [MARCH],
  aggregations: [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
  ],
};
const EVENTS_BY_HOUR: Record<string, Record<string, number>> = {
  '2024-03-01T08': { car: 1 },
  '2024-03-01T09': { person: 1 },
  '2024-03-01T23': { car: 1 },
  '2024-03-02T10': { truck: 1 },
  '2024-03-03T12': { car: 1 },
};
const HOURLY_MARCH = Array.from({ length: 31 * 24 }, (_, h) => {
  const timestamp = new Date(Date.UTC(2024, 2, 1, h)).toISOString();
  return { timestamp, ...EVENTS_BY_HOUR[timestamp.slice(0, 13)] };
});

describe.each(ENGINES)('POST /reports:query on $name', (harness) => {
  let loaded: LoadedEngine;
  beforeAll(async () => {
    loaded = await harness.load(docs);
  });
  afterAll(() => loaded.drop());
  const query = (req: HttpRequest) => invoke(createQueryReportHandler({ engine: () => loaded.engine }), req);

  test('answers gzip to Accept-Encoding: gzip, in base64 for API Gateway, the very JSON once decoded', async () => {
    const response = await query({ body: hourly, headers: { 'accept-encoding': 'gzip' } });
    expect([
      response.status,
      response.isBase64Encoded,
      response.headers['content-encoding'],
      response.headers.vary,
    ]).toEqual([200, true, 'gzip', 'Accept, Accept-Encoding']);
    expect(JSON.parse(gunzipSync(response.bytes).toString('utf8'))).toEqual(HOURLY_MARCH);
  });

  test('answers br to a browser’s gzip, deflate, br, and CSV compressed too', async () => {
    const response = await query({
      body: hourly,
      headers: { 'accept-encoding': 'gzip, deflate, br', accept: 'text/csv' },
    });
    expect([response.status, response.headers['content-encoding'], response.headers['content-type']]).toEqual([
      200,
      'br',
      'text/csv; charset=utf-8',
    ]);
    const csv = brotliDecompressSync(response.bytes).toString('utf8').split('\r\n');
    // A header, 744 hours, and the empty string after the last CRLF.
    expect([csv.length, csv[0], csv[9], csv[10]]).toEqual([
      746,
      'timestamp,car,person,truck',
      '2024-03-01T08:00:00.000Z,1,0,0',
      '2024-03-01T09:00:00.000Z,0,1,0',
    ]);
  });

  test('answers plain JSON, with Vary: Accept-Encoding all the same, without Accept-Encoding or for a short body', async () => {
    const plain = await query({ body: hourly });
    expect([plain.status, plain.isBase64Encoded, plain.headers['content-encoding'], plain.headers.vary]).toEqual([
      200,
      false,
      undefined,
      'Accept, Accept-Encoding',
    ]);
    expect(plain.json()).toEqual(HOURLY_MARCH);
    // {"car":3,"person":1,"truck":1}: 30 bytes, under the 1 KiB threshold.
    const short = await query({
      body: { aggregations: [{ type: 'terms', field: 'label' }] },
      headers: { 'accept-encoding': 'gzip' },
    });
    expect([short.headers['content-encoding'], short.headers.vary, short.body]).toEqual([
      undefined,
      'Accept, Accept-Encoding',
      '{"car":3,"person":1,"truck":1}',
    ]);
  });

  test('answers problems uncompressed whatever Accept-Encoding says', async () => {
    const refused = await query({ body: { aggregations: [] }, headers: { 'accept-encoding': 'gzip' } });
    expect([
      refused.status,
      refused.isBase64Encoded,
      refused.headers['content-encoding'],
      refused.headers['content-type'],
    ]).toEqual([400, false, undefined, 'application/problem+json']);
  });
});

/**
 * An engine answering a histogram of `hours` hourly buckets from 2024-01-01, each with a car and a
 * person: a split report's worth of buckets, more than one engine query may hold, without loading it.
 */
class LongHistogramEngine implements ReportEngine {
  readonly maxBuckets = 65_535;
  constructor(private readonly hours: number) {}

  async run(): Promise<EngineResult> {
    const start = Date.UTC(2024, 0, 1);
    const terms = (i: number) => ({
      kind: 'terms' as const,
      buckets: [
        { key: 'car', count: i % 97 },
        { key: 'person', count: i % 89 },
      ],
    });
    return {
      root: {
        kind: 'histogram',
        buckets: Array.from({ length: this.hours }, (_, i) => ({
          key: start + i * 3_600_000,
          count: (i % 97) + (i % 89),
          sub: terms(i),
        })),
      },
      truncated: false,
    };
  }
}

describe('the response ceiling, on the body as it is sent', () => {
  // 120,000 hours, ~13.7 years: rows like {"timestamp":"2024-01-01T00:00:00.000Z","car":0,"person":0}
  // of about 60 bytes, so about 7 MB of JSON, more as the JSON string the Lambda response carries it in.
  const handler = createQueryReportHandler({ engine: () => new LongHistogramEngine(120_000) });
  const body = {
    source: 'movementEvents',
    aggregations: [
      { type: 'dateHistogram', interval: '1h' },
      { type: 'terms', field: 'label' },
    ],
  };

  test('answers 200 gzip for a report whose JSON is over the ceiling and whose gzip is under it', async () => {
    const response = await invoke(handler, { body, headers: { 'accept-encoding': 'gzip' } });
    expect([response.status, response.headers['content-encoding']]).toEqual([200, 'gzip']);
    const json = gunzipSync(response.bytes).toString('utf8');
    expect(Buffer.byteLength(JSON.stringify(json))).toBeGreaterThan(MAX_RESPONSE_BODY_BYTES);
    expect(response.body.length + 2).toBeLessThanOrEqual(MAX_RESPONSE_BODY_BYTES);
    const rows = JSON.parse(json) as Record<string, unknown>[];
    expect([rows.length, rows[0], rows[119_999]]).toEqual([
      120_000,
      // Hour 0: no car, no person, and a series with no documents is left out of its bucket.
      { timestamp: '2024-01-01T00:00:00.000Z' },
      // Hour 119,999: 119,999 − 97 × 1,237 = 10 cars, 119,999 − 89 × 1,348 = 27 people.
      { timestamp: new Date(Date.UTC(2024, 0, 1) + 119_999 * 3_600_000).toISOString(), car: 10, person: 27 },
    ]);
  });

  test('answers 422 response-too-large for the same report without Accept-Encoding', async () => {
    const response = await invoke(handler, { body });
    expect(response.status).toBe(422);
    expect(response.json()).toMatchObject({ type: '/problems#response-too-large', maxBytes: MAX_RESPONSE_BODY_BYTES });
    expect(response.json<{ bytes: number }>().bytes).toBeGreaterThan(MAX_RESPONSE_BODY_BYTES);
  });
});
