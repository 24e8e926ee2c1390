import type { DocumentInput } from '#shared/documents/documents';
import { createQueryReportHandler } from '../../../functions/query-report';
import { ENGINES, type EngineHarness, type LoadedEngine } from '../split/engines';
import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';
import { ORG_A } from './fixtures';

/**
 * The edges of POST /reports:query (issue 12, defects 3, 6 and 7) through the real handler on every
 * engine: CSV quoting and formula escaping, names that JavaScript objects mishandle, and the media
 * types of the request body and of Accept. Expected bodies are written out by hand from DOCS.
 */
const at = (minute: number) => new Date(Date.UTC(2024, 2, 1, 8, minute)).toISOString();
const doc = (
  minute: number,
  label: string,
  polygons: { id: string; value: number }[] = [],
): DocumentInput<'movementEvents'> => ({
  organizationId: ORG_A,
  locationId: 'L1',
  trackingCameraId: 'c1',
  label,
  timestamp: at(minute),
  polygons,
});

/**
 * One document per label, all on 2024-03-01 between 08:00 and 08:50 UTC; polygon z holds 5 and 2 (seconds: never
 * negative).
 */
const DOCS = [
  doc(0, '=HYPERLINK("http://evil.example")', [{ id: 'z', value: 5 }]),
  doc(5, '+cmd'),
  doc(10, '-5'),
  doc(15, '@SUM(1)'),
  doc(20, '\tTab'),
  doc(25, '\rCR'),
  doc(30, 'two\nlines'),
  doc(35, 'cr\ronly'),
  doc(40, '__proto__'),
  doc(45, 'plain', [{ id: 'z', value: 2 }]),
];

const labels = (...values: string[]) => [{ type: 'terms', field: 'label', values }];
const byLabel = [{ type: 'terms', field: 'label' }];

describe.each(ENGINES)('on $name', (harness) => {
  let loaded: LoadedEngine;
  beforeAll(async () => {
    loaded = await harness.load(DOCS);
  });
  afterAll(() => loaded.drop());
  const query = (req: HttpRequest) => invoke(createQueryReportHandler({ engine: () => loaded.engine }), req);
  const csv = async (body: unknown) => {
    const response = await query({ body, headers: { accept: 'text/csv' } });
    expect(response.status).toBe(200);
    return response.body;
  };

  describe('CSV', () => {
    test('quotes a header cell holding a bare LF or a bare CR, as RFC 4180 asks of any line break', async () => {
      // Sorted by key: "cr\ronly" (c), "plain" (p), "two\nlines" (t), one document each.
      const body = await csv({ filters: labels('two\nlines', 'cr\ronly', 'plain'), aggregations: byLabel });
      expect(body).toBe('"cr\ronly",plain,"two\nlines"\r\n1,1,1\r\n');
    });

    test('quotes line breaks in the series columns of a time series too', async () => {
      const body = await csv({
        filters: labels('two\nlines', 'plain'),
        aggregations: [{ type: 'dateHistogram', interval: '1d' }, ...byLabel],
      });
      expect(body).toBe('timestamp,plain,"two\nlines"\r\n2024-03-01T00:00:00.000Z,1,1\r\n');
    });

    test('escapes a text cell that a spreadsheet would run as a formula with a leading apostrophe', async () => {
      // Code-unit order: TAB (9), CR (13), + (43), - (45), = (61), @ (64), p (112). The = cell holds
      // quotes, so it is quoted with its quotes doubled; the CR cell holds a line break, so it is quoted.
      const body = await csv({
        filters: labels('=HYPERLINK("http://evil.example")', '+cmd', '-5', '@SUM(1)', '\tTab', '\rCR', 'plain'),
        aggregations: byLabel,
      });
      expect(body).toBe(
        `'\tTab,"'\rCR",'+cmd,'-5,"'=HYPERLINK(""http://evil.example"")",'@SUM(1),plain\r\n1,1,1,1,1,1,1\r\n`,
      );
    });

    test('leaves numbers as numbers, not text (a negative one: test/unit/report/render)', async () => {
      // Polygon z: 5 (the HYPERLINK document) and 2 (plain): min 2, avg 7 / 2, sum 7.
      const body = await csv({
        aggregations: [
          { type: 'nested', path: 'polygons' },
          { type: 'stats', field: 'polygons.value', min: true, sum: true },
        ],
      });
      expect(body).toBe('min,avg,sum\r\n2,3.5,7\r\n');
    });
  });

  describe('names that a JavaScript object mishandles', () => {
    test('keeps a terms key __proto__ as a series of a time series in JSON', async () => {
      const response = await query({
        body: {
          filters: labels('__proto__', 'plain'),
          aggregations: [{ type: 'dateHistogram', interval: '1d' }, ...byLabel],
        },
      });
      expect(response.body).toBe('[{"timestamp":"2024-03-01T00:00:00.000Z","__proto__":1,"plain":1}]');
    });

    test('refuses a filters bucket named __proto__ with a 400 naming it, instead of dropping its bucket', async () => {
      // Raw JSON: an object literal with __proto__ would set a prototype, not send a bucket.
      const rawBody =
        '{"aggregations":[{"type":"filters","filters":{"kept":{"type":"terms","field":"label","values":["plain"]},' +
        '"__proto__":{"type":"terms","field":"label","values":["-5"]}}}]}';
      const response = await query({ rawBody });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        status: 400,
        errors: [
          { path: '/aggregations/0/filters/__proto__', message: '"__proto__" is reserved; name the bucket otherwise' },
        ],
      });
    });

    test('answers other names of Object.prototype as ordinary bucket names', async () => {
      const filters = {
        constructor: { type: 'terms', field: 'label', values: ['plain'] },
        toString: { type: 'terms', field: 'label', values: ['-5', '+cmd'] },
      };
      const response = await query({ body: { aggregations: [{ type: 'filters', filters }] } });
      expect(response.body).toBe('{"constructor":1,"toString":2}');
    });
  });
});

describe('media types of POST /reports:query', () => {
  let loaded: LoadedEngine;
  beforeAll(async () => {
    // The media types are the edge's, before any engine: one engine will do.
    loaded = await (ENGINES.find((e) => e.name === 'DuckDB') as EngineHarness).load(DOCS);
  });
  afterAll(() => loaded.drop());
  const query = (req: HttpRequest) => invoke(createQueryReportHandler({ engine: () => loaded.engine }), req);
  const report = { filters: labels('plain', '-5'), aggregations: byLabel };

  test('answers 415 problem+json naming application/json to a JSON body without Content-Type', async () => {
    const response = await query({ body: report, headers: { 'content-type': undefined } });
    expect(response.status).toBe(415);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.headers.accept).toBe('application/json');
    expect(response.json()).toEqual({
      type: '/problems#unsupported-media-type',
      title: 'Unsupported media type',
      status: 415,
      detail: 'the request has no Content-Type; the body must be application/json.',
      allowed: ['application/json'],
      requestId: 'test-request',
    });
  });

  test('reads the body whatever the letter case of its media type and parameter names', async () => {
    for (const contentType of [
      'APPLICATION/JSON',
      'Application/Json; Charset=UTF-8',
      'application/json;charset="utf-8"',
    ]) {
      const response = await query({ body: report, headers: { 'content-type': contentType } });
      expect({ contentType, status: response.status, body: response.body }).toEqual({
        contentType,
        status: 200,
        body: '{"-5":1,"plain":1}',
      });
    }
  });

  test('answers 415 to another media type, a JSON-like one, a charset other than UTF-8, or an unparsable Content-Type', async () => {
    const cases = {
      'text/plain': 'Content-Type text/plain is not supported',
      'application/merge-patch+json': 'Content-Type application/merge-patch+json is not supported',
      'application/json; charset=iso-8859-1': 'charset iso-8859-1 is not supported (JSON is UTF-8)',
      'application/json;;': 'Content-Type "application/json;;" is not a media type',
    };
    for (const [contentType, reason] of Object.entries(cases)) {
      const response = await query({ body: report, headers: { 'content-type': contentType } });
      expect({ contentType, status: response.status, detail: response.json<{ detail: string }>().detail }).toEqual({
        contentType,
        status: 415,
        detail: `${reason}; the body must be application/json.`,
      });
    }
  });

  test('answers 400, not 415, when there is no body at all', async () => {
    for (const headers of [{}, { 'content-type': undefined }]) {
      const response = await query({ headers });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ detail: 'A JSON body is required.' });
    }
  });

  test('answers the type an Accept with parameters asks for, parameters as the answers have them', async () => {
    // The key -5 is text in a header cell, so CSV escapes it (as above).
    const cases = {
      'text/csv; charset=utf-8': ['text/csv; charset=utf-8', "'-5,plain\r\n1,1\r\n"],
      'text/csv;charset=UTF-8;header=present': ['text/csv; charset=utf-8', "'-5,plain\r\n1,1\r\n"],
      'application/json; charset=utf-8': ['application/json', '{"-5":1,"plain":1}'],
      'text/csv; charset=utf-8; q=0.5, application/json; charset=utf-8': ['application/json', '{"-5":1,"plain":1}'],
    };
    for (const [accept, [contentType, body]] of Object.entries(cases)) {
      const response = await query({ body: report, headers: { accept } });
      expect({
        accept,
        status: response.status,
        contentType: response.headers['content-type'],
        body: response.body,
      }).toEqual({ accept, status: 200, contentType, body });
    }
  });

  test('answers 406 to parameters the answers do not have', async () => {
    for (const accept of [
      'text/csv; charset=iso-8859-1',
      'text/csv; header=absent',
      'application/json; charset=utf-16',
    ]) {
      const response = await query({ body: report, headers: { accept } });
      expect({ accept, status: response.status, detail: response.json<{ detail: string }>().detail }).toEqual({
        accept,
        status: 406,
        detail: 'Allowed values of Accept: application/json, text/csv.',
      });
    }
  });
});
