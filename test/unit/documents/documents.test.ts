import { ValidationError, type FieldError } from '#shared/errors';
import { parseDocument } from '#shared/documents/documents';
import { checkLines } from '#shared/ingest/batch';
import { parseHistoryQuery } from '#shared/occupancy/history-query';
import { toSource } from '#shared/stores/opensearch/write';

const base = { organizationId: 'org', locationId: 'loc' };

function errorsOf(collection: Parameters<typeof parseDocument>[0], input: unknown, prefix?: string): FieldError[] {
  try {
    parseDocument(collection, input, prefix);
  } catch (e) {
    if (e instanceof ValidationError) return [...e.errors];
    throw e;
  }
  throw new Error('expected the document to be refused');
}

describe('parseDocument', () => {
  test('turns timestamps with an offset into epoch ms and derives crossedPaths.start from end', () => {
    // Act
    const doc = parseDocument('movementEvents', {
      ...base,
      id: 'e1',
      timestamp: '2024-03-31T03:00:00+02:00',
      crossedPaths: [
        { id: 'n', end: 'A' },
        { id: 's', end: 'B', start: 'B' },
      ],
      polygons: [{ id: 'z', value: 1.5 }],
    });
    // Assess: a given start is kept as it is
    expect(doc).toEqual({
      ...base,
      id: 'e1',
      timestamp: Date.parse('2024-03-31T01:00:00Z'),
      crossedPaths: [
        { id: 'n', end: 'A', start: 'B' },
        { id: 's', end: 'B', start: 'B' },
      ],
      polygons: [{ id: 'z', value: 1.5 }],
    });
  });

  test('converts every date field of a parking event', () => {
    const doc = parseDocument('parkingEvents', {
      ...base,
      timestamp: '2024-03-30T10:00:00.500Z',
      startingTimestamp: '2024-03-30T09:50:00Z',
      duration: 600.5,
    });
    expect(doc).toMatchObject({
      timestamp: Date.parse('2024-03-30T10:00:00.500Z'),
      startingTimestamp: Date.parse('2024-03-30T09:50:00Z'),
    });
  });

  test('lists every problem of a document at once, located by the batch prefix', () => {
    const errors = errorsOf(
      'movementEvents',
      { locationId: '', timestamp: '2024-03-31 03:00', colour: 'red', crossedPaths: [{ id: 'n', end: 'C' }] },
      '/7',
    );
    expect(errors.map((e) => e.path).sort()).toEqual([
      '/7/colour',
      '/7/crossedPaths/0/end',
      '/7/locationId',
      '/7/organizationId',
      '/7/timestamp',
    ]);
    expect(errors.find((e) => e.path === '/7/colour')?.message).toContain(
      'allowed: id, organizationId, locationId, timestamp',
    );
  });

  test('refuses numbers that are not finite and fields of another collection', () => {
    expect(
      errorsOf('parkingLotStats', { ...base, timestamp: '2024-03-30T10:00:00Z', occupied: Number.NaN }).map(
        (e) => e.path,
      ),
    ).toEqual(['/occupied']);
    expect(
      errorsOf('parkingLotStats', { ...base, timestamp: '2024-03-30T10:00:00Z', label: 'car' }).map((e) => e.path),
    ).toEqual(['/label']);
  });
});

describe('numbers by what they mean', () => {
  const stats = (fields: Record<string, unknown>) =>
    errorsOf('parkingLotStats', { ...base, timestamp: '2024-03-30T10:00:00Z', ...fields });
  const seconds = 'must be a number of seconds from 0 to 1,000,000,000 (about 31 years)';
  const spots = 'must be a number of spots from 0 to 1,000,000';

  test('refuse a negative or huge duration and time in a polygon, naming the field and the range', () => {
    // The probe's values: −5 and ±1e308 (whose sums overflowed to null, NaN or 0 by engine and path).
    expect(errorsOf('parkingEvents', { ...base, timestamp: '2024-03-30T10:00:00Z', duration: -5 })).toEqual([
      { path: '/duration', message: seconds },
    ]);
    expect(errorsOf('parkingEvents', { ...base, timestamp: '2024-03-30T10:00:00Z', duration: 1e308 })).toEqual([
      { path: '/duration', message: seconds },
    ]);
    expect(
      errorsOf('movementEvents', {
        ...base,
        timestamp: '2024-03-30T10:00:00Z',
        polygons: [
          { id: 'z', value: 12 },
          { id: 'z', value: -1e308 },
        ],
      }),
    ).toEqual([{ path: '/polygons/1/value', message: seconds }]);
    // The ends of the range are taken, fractions too.
    const ends = [0, 600.5, 1e9].map(
      (duration) => parseDocument('parkingEvents', { ...base, timestamp: '2024-03-30T10:00:00Z', duration }).duration,
    );
    expect(ends).toEqual([0, 600.5, 1e9]);
  });

  test('refuse spots that are negative or beyond 1,000,000, and take an average (2.5 spots)', () => {
    expect(stats({ occupied: -1, free: -0.5, total: 1_000_001 })).toEqual([
      { path: '/occupied', message: spots },
      { path: '/free', message: spots },
      { path: '/total', message: spots },
    ]);
    expect(
      parseDocument('parkingLotStats', {
        ...base,
        timestamp: '2024-03-30T10:00:00Z',
        occupied: 2.5,
        free: 7.5,
        total: 10,
      }),
    ).toMatchObject({ occupied: 2.5, free: 7.5 });
  });

  test('refuse occupied or free spots beyond the total, and take them up to it', () => {
    expect(stats({ occupied: 11, free: 12, total: 10 })).toEqual([
      { path: '/occupied', message: 'must be at most total (10): a lot has no more occupied spots than spots' },
      { path: '/free', message: 'must be at most total (10): a lot has no more free spots than spots' },
    ]);
    expect(
      parseDocument('parkingLotStats', {
        ...base,
        timestamp: '2024-03-30T10:00:00Z',
        occupied: 10,
        free: 0,
        total: 10,
      }),
    ).toMatchObject({ occupied: 10, free: 0, total: 10 });
    // Without a total there is nothing to be within.
    expect(
      parseDocument('parkingLotStats', { ...base, timestamp: '2024-03-30T10:00:00Z', occupied: 500 }),
    ).toMatchObject({ occupied: 500 });
  });
});

describe('text that is not well-formed Unicode', () => {
  const refusal = {
    message: 'must be well-formed Unicode text: a lone surrogate (such as \\ud800 without its pair) is not a character',
  };

  test('refuses a line with a lone surrogate, naming the field, rather than storing U+FFFD', () => {
    // Prepare: as sent in NDJSON, the escapes JSON.parse turns into lone surrogates (high alone, low alone, reversed
    // pair).
    const lines = [
      '{"label":"car\\ud800"}',
      '{"trackingCameraId":"\\udc00cam"}',
      '{"crossedPaths":[{"id":"\\udc00\\ud800","end":"A"}]}',
    ].map((json, i) => ({
      line: i + 1,
      text: json.replace('{', '{"locationId":"loc","timestamp":"2024-03-30T10:00:00Z",'),
    }));
    // Act
    const { valid, rejected } = checkLines('movementEvents', lines, { organizationId: 'org' });
    // Assess
    expect(valid).toEqual([]);
    expect(rejected).toEqual([
      { line: 1, errors: [{ path: '/label', ...refusal }] },
      { line: 2, errors: [{ path: '/trackingCameraId', ...refusal }] },
      { line: 3, errors: [{ path: '/crossedPaths/0/id', ...refusal }] },
    ]);
  });

  test('keeps a character outside the BMP (a surrogate pair) and U+FFFD sent as itself', () => {
    const doc = parseDocument('movementEvents', {
      ...base,
      timestamp: '2024-03-30T10:00:00Z',
      label: '\u{1F697}',
      trackingCameraId: '\uFFFD',
    });
    expect([doc.label, doc.trackingCameraId]).toEqual(['🚗', '\uFFFD']);
  });
});

describe('timestamps', () => {
  const historyErrors = (from: string) => {
    try {
      parseHistoryQuery({ filter: 'occupancy', from, to: '2024-03-31T00:00:00Z' });
    } catch (e) {
      return (e as ValidationError).errors.filter((x) => x.path === '/query/from').map((x) => x.message);
    }
    return [];
  };

  test('ingest and history refuse a timestamp that is not ISO 8601 in the same words', () => {
    // Act
    const ingest = errorsOf('parkingEvents', {
      ...base,
      timestamp: '2024-03-30 10:00',
      startingTimestamp: 'yesterday',
    });
    // Assess: the words history has always said, for both fields, and history's own.
    const words = 'must be an ISO 8601 timestamp with Z or an offset, e.g. 2024-03-31T00:00:00+02:00';
    expect(ingest).toEqual([
      { path: '/timestamp', message: words },
      { path: '/startingTimestamp', message: words },
    ]);
    expect(historyErrors('2024-03-30 10:00')).toEqual([words]);
  });

  test('refuse instants before 1970 (year 0000 among them) in ingest and history, and take 1970 itself', () => {
    const floor = 'must be 1970-01-01T00:00:00Z or later (no time zone has reliable offsets before it)';
    expect(errorsOf('movementEvents', { ...base, timestamp: '0000-01-01T00:00:00Z' })).toEqual([
      { path: '/timestamp', message: floor },
    ]);
    // One millisecond before the floor, written with an offset.
    expect(
      errorsOf('parkingEvents', {
        ...base,
        timestamp: '2024-03-30T10:00:00Z',
        startingTimestamp: '1970-01-01T00:59:59.999+01:00',
      }),
    ).toEqual([{ path: '/startingTimestamp', message: floor }]);
    expect(parseDocument('movementEvents', { ...base, timestamp: '1970-01-01T01:00:00+01:00' }).timestamp).toBe(0);
    expect(historyErrors('0000-01-01T00:00:00Z')).toEqual([floor]);
    expect(historyErrors('1970-01-01T00:00:00Z')).toEqual([]);
  });
});

describe('toSource (OpenSearch _source)', () => {
  test('leaves the id to _id and writes dates as ISO 8601 UTC with milliseconds', () => {
    const doc = parseDocument('parkingEvents', {
      ...base,
      id: 'p1',
      timestamp: '2024-03-30T11:00:00+01:00',
      startingTimestamp: '2024-03-30T09:50:00Z',
    });
    expect(toSource(doc)).toEqual({
      ...base,
      timestamp: '2024-03-30T10:00:00.000Z',
      startingTimestamp: '2024-03-30T09:50:00.000Z',
    });
  });
});
