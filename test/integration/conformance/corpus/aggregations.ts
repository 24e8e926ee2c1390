import { LOC_NYC, ORG_B } from '../../../fixtures/documents';
import { range, terms, type ConformanceCase } from './case';

/** Object-shaped answers (no histogram): terms, nested, reverseNested, filter(s), stats, filters of every kind. */
const label = { type: 'terms', field: 'label' };
const nested = (path: string) => ({ type: 'nested', path });
const stats = (field: string, asked: Record<string, boolean>) => ({ type: 'stats', field, ...asked });
const lots = { source: 'parkingLotStats' };
const lotTerms = { type: 'terms', field: 'parkingLotId' };

export const AGGREGATION_CASES: readonly ConformanceCase[] = [
  {
    name: 'counts movement events per label',
    body: { source: 'movementEvents', aggregations: [label] },
    // car: me-01 02 05 09 10 14 16 17; person: me-03 06 11 13 and the one without id; truck: me-04 08 12 15.
    expected: { status: 200, body: { car: 8, person: 5, truck: 4 } },
  },
  {
    name: 'keeps the two smallest labels under termsCap 2 and says the answer was truncated',
    body: { source: 'movementEvents', aggregations: [label] },
    termsCap: 2,
    expected: { status: 200, body: { car: 8, person: 5 }, headers: { 'X-Report-Truncated': 'true' } },
  },
  {
    name: 'cuts the labels of every location to one under termsCap 1',
    body: { source: 'movementEvents', aggregations: [{ type: 'terms', field: 'locationId' }, label] },
    termsCap: 1,
    // The smallest keys: loc-berlin before loc-nyc, car first of Berlin's labels (me-01 02 05 09 10).
    expected: { status: 200, body: { 'loc-berlin car': 5 }, headers: { 'X-Report-Truncated': 'true' } },
  },
  {
    name: 'joins camera and label with a pipe',
    body: {
      source: 'movementEvents',
      aggregations: [{ type: 'terms', field: 'trackingCameraId', keyJoiner: '|' }, label],
    },
    // cam-1: me-01 02 05 09 10 car, 04 08 12 truck; cam-2: me-03 06 11 13 person (me-07 has no label);
    // cam-3: me-14 16 17 car, 15 truck, the one without id person.
    expected: {
      status: 200,
      body: {
        'cam-1|car': 5,
        'cam-1|truck': 3,
        'cam-2|person': 4,
        'cam-3|car': 3,
        'cam-3|person': 1,
        'cam-3|truck': 1,
      },
    },
  },
  {
    name: 'narrows to the New York location with locationIds',
    body: { source: 'movementEvents', locationIds: [LOC_NYC], aggregations: [label] },
    expected: { status: 200, body: { car: 3, person: 1, truck: 1 } },
  },
  {
    name: 'shows another organization only its own documents',
    body: { source: 'movementEvents', aggregations: [label] },
    organizationId: ORG_B,
    expected: { status: 200, body: { car: 1, person: 1, '\uFF5A': 1, '\u{1F600}': 1 } },
  },
  {
    name: 'cuts terms by code point order, as OpenSearch orders keywords',
    body: { source: 'movementEvents', aggregations: [label] },
    organizationId: ORG_B,
    termsCap: 3,
    // By code point: car, person, U+FF5A, then U+1F600 (cut). By UTF-16 unit the emoji would come third.
    expected: { status: 200, body: { car: 1, person: 1, '\uFF5A': 1 }, headers: { 'X-Report-Truncated': 'true' } },
  },
  {
    name: 'counts nested crossings, not events',
    body: { aggregations: [nested('crossedPaths')] },
    // Items: me-03 and me-12 have two, 13 other events one each; me-04, me-13 and the last NYC event none.
    expected: { status: 200, body: { count: 17 } },
  },
  {
    name: 'names crossings by line then direction, whatever the order of the terms',
    body: {
      aggregations: [
        nested('crossedPaths'),
        { type: 'terms', field: 'crossedPaths.end' },
        { type: 'terms', field: 'crossedPaths.id' },
      ],
    },
    // North A: me-01 03 05 09 12 14 16; north B: me-02 08 10 12; south A: me-03 07 11; south B: me-06 15 17.
    expected: { status: 200, body: { 'line-north A': 7, 'line-south A': 3, 'line-north B': 4, 'line-south B': 3 } },
  },
  {
    name: 'answers the deprecated crossedPaths.start with a Deprecation header',
    body: {
      aggregations: [
        nested('crossedPaths'),
        { type: 'terms', field: 'crossedPaths.id' },
        { type: 'terms', field: 'crossedPaths.start' },
      ],
    },
    // start is the inverse of end (given or derived): the counts of the case above with A and B swapped.
    // The date is 2026-11-22T00:00:00Z in epoch seconds (RFC 9745).
    expected: {
      status: 200,
      body: { 'line-north A': 4, 'line-north B': 7, 'line-south A': 3, 'line-south B': 3 },
      headers: { Deprecation: '@1795305600' },
    },
  },
  {
    name: 'counts only the line-north crossings of events that have one, by direction',
    body: {
      nestedFilters: [{ path: 'crossedPaths', filters: [terms('crossedPaths.id', ['line-north'])] }],
      aggregations: [nested('crossedPaths'), { type: 'terms', field: 'crossedPaths.end' }],
    },
    // line-north A: me-01 03 05 09 12 14 16; B: me-02 08 10 12 (me-05's explicit start B does not matter).
    expected: { status: 200, body: { A: 7, B: 4 } },
  },
  {
    name: 'counts the line-north events of a time range with nestedFilters, the range end excluded',
    body: {
      filters: [range('timestamp', '2024-03-30T00:00:00Z', '2024-03-31T01:00:00Z')],
      nestedFilters: [{ path: 'crossedPaths', filters: [terms('crossedPaths.id', ['line-north'])] }],
      aggregations: [label],
    },
    // In range: me-02 car (north), me-03 person (south and north), me-04 truck (no line); me-05 (north) is at the end,
    // 01:00Z.
    expected: { status: 200, body: { car: 1, person: 1 } },
  },
  {
    name: 'requires every nestedFilters entry, each on its own items',
    body: {
      nestedFilters: [
        { path: 'crossedPaths', filters: [terms('crossedPaths.id', ['line-south'])] },
        { path: 'polygons', filters: [range('polygons.value', 1)] },
      ],
      aggregations: [label],
    },
    // line-south: me-03 07 11 15 17 and 06; of those only me-06 (2.25) and me-11 (1.1, 2.2) have a polygon value ≥ 1.
    expected: { status: 200, body: { person: 2 } },
  },
  {
    name: 'counts distinct events per direction with reverseNested',
    body: {
      aggregations: [nested('crossedPaths'), { type: 'terms', field: 'crossedPaths.end' }, { type: 'reverseNested' }],
    },
    // A: me-01 03 (twice) 05 07 09 11 12 14 16; B: me-02 06 08 10 12 15 17.
    expected: { status: 200, body: { A: 9, B: 7 } },
  },
  {
    name: 'goes from crossings back to events and into their polygons',
    body: {
      aggregations: [
        nested('crossedPaths'),
        { type: 'terms', field: 'crossedPaths.end' },
        { type: 'reverseNested' },
        nested('polygons'),
        stats('polygons.value', { sum: true, count: true }),
      ],
    },
    // A: events me-01 03 05 07 09 11 12 14 16, their polygons 1.5, 0.7, 1.1, 2.2 (avg is asked by default).
    // B: events me-02 06 08 10 12 15 17, their polygons 0.1, 0.2, 2.25, 0.3, 0.25, 0.15.
    expected: {
      status: 200,
      body: {
        'A avg': expect.closeTo(1.375, 9),
        'A sum': expect.closeTo(5.5, 9),
        'A count': 4,
        'B avg': expect.closeTo(3.25 / 6, 9),
        'B sum': expect.closeTo(3.25, 9),
        'B count': 6,
      },
    },
  },
  {
    name: 'counts the locations of cars with a filter aggregation',
    body: {
      aggregations: [
        { type: 'filter', filter: terms('label', ['car']) },
        { type: 'terms', field: 'locationId' },
      ],
    },
    // Berlin: me-01 02 05 09 10; New York: me-14 16 17.
    expected: { status: 200, body: { 'loc-berlin': 5, 'loc-nyc': 3 } },
  },
  {
    name: 'keeps a filters bucket that matches nothing, with 0',
    body: {
      source: 'movementEvents',
      aggregations: [{ type: 'filters', filters: { cars: terms('label', ['car']), bikes: terms('label', ['bike']) } }],
    },
    expected: { status: 200, body: { cars: 8, bikes: 0 } },
  },
  {
    name: 'splits crossings into in and out, then counts labels of their events',
    body: {
      aggregations: [
        nested('crossedPaths'),
        { type: 'filters', filters: { in: terms('crossedPaths.end', ['A']), out: terms('crossedPaths.end', ['B']) } },
        { type: 'reverseNested' },
        label,
      ],
    },
    // In: me-01 05 09 14 16 car, 03 11 person, 12 truck (me-07 has no label); out: me-02 10 17 car, 06 person, 08 12 15
    // truck.
    expected: {
      status: 200,
      body: { 'in car': 5, 'in person': 2, 'in truck': 1, 'out car': 3, 'out person': 1, 'out truck': 3 },
    },
  },
  {
    name: 'gives every stat of fractional polygon dwell times per polygon, summed as OpenSearch sums them',
    body: {
      aggregations: [
        nested('polygons'),
        { type: 'terms', field: 'polygons.id' },
        stats('polygons.value', { min: true, max: true, avg: true, sum: true, count: true }),
      ],
    },
    // zone-1: 1.5 0.1 2.25 0.3 0.25 0.15 (me-01 02 06 08 10 15); zone-2: 0.2 0.7 1.1 2.2 0.6 (me-02 05 11 11 13).
    expected: {
      status: 200,
      body: {
        'zone-1 min': 0.1,
        'zone-1 max': 2.25,
        'zone-1 avg': expect.closeTo(4.55 / 6, 9),
        'zone-1 sum': expect.closeTo(4.55, 9),
        'zone-1 count': 6,
        'zone-2 min': 0.2,
        'zone-2 max': 2.2,
        'zone-2 avg': expect.closeTo(0.96, 9),
        'zone-2 sum': expect.closeTo(4.8, 9),
        'zone-2 count': 5,
      },
    },
  },
  {
    name: 'gives only the minimum occupancy per lot',
    body: { ...lots, aggregations: [lotTerms, stats('occupied', { min: true, avg: false })] },
    expected: { status: 200, body: { 'lot-1 min': 10, 'lot-2 min': 5, 'lot-9 min': 0.1 } },
  },
  {
    name: 'gives only the maximum of free spots, ignoring a measurement without it',
    body: { ...lots, aggregations: [lotTerms, stats('free', { max: true, avg: false })] },
    expected: { status: 200, body: { 'lot-1 max': 40, 'lot-2 max': 5, 'lot-9 max': 9.9 } },
  },
  {
    name: 'gives only the count of total values per lot',
    body: { ...lots, aggregations: [lotTerms, stats('total', { count: true, avg: false })] },
    expected: { status: 200, body: { 'lot-1 count': 3, 'lot-2 count': 2, 'lot-9 count': 2 } },
  },
  {
    name: 'gives only the sum of parking durations per camera',
    body: {
      source: 'parkingEvents',
      aggregations: [{ type: 'terms', field: 'cameraId' }, stats('duration', { sum: true, avg: false })],
    },
    // cam-p1: 600.5 + 1200; cam-p2: 33.3 + 0.1 (pe-06 has no duration); cam-p9: 0.2.
    expected: { status: 200, body: { 'cam-p1 sum': 1800.5, 'cam-p2 sum': expect.closeTo(33.4, 9), 'cam-p9 sum': 0.2 } },
  },
  {
    name: 'gives the average by default',
    body: { ...lots, aggregations: [stats('occupied', {})] },
    // 10 + 12 + 30 + 5 + 7 + 2.5 + 0.1 = 66.6 over 7 measurements.
    expected: { status: 200, body: { avg: expect.closeTo(66.6 / 7, 9) } },
  },
  {
    name: 'gives every stat of parking durations, one of them missing',
    body: {
      source: 'parkingEvents',
      aggregations: [stats('duration', { min: true, max: true, sum: true, count: true })],
    },
    // 600.5, 1200, 33.3, 0.1, 0.2 (pe-06 has no duration): the sum is 1834.1 up to rounding.
    expected: {
      status: 200,
      body: { min: 0.1, max: 1200, avg: expect.closeTo(366.82, 9), sum: expect.closeTo(1834.1, 9), count: 5 },
    },
  },
  {
    name: 'filters on a numeric range and on a second date field',
    body: {
      source: 'parkingEvents',
      filters: [range('duration', 1, 1000), range('startingTimestamp', '2024-03-30T11:00:00Z')],
      aggregations: [{ type: 'terms', field: 'spotId' }],
    },
    // Durations in [1, 1000): pe-01 (started 09:50, too early) and pe-03 (s1, started Mar 31).
    expected: { status: 200, body: { s1: 1 } },
  },
  {
    name: 'filters on several keyword fields with several values',
    body: {
      source: 'movementEvents',
      filters: [terms('label', ['car', 'truck']), terms('trackingCameraId', ['cam-1', 'cam-3'])],
      aggregations: [{ type: 'terms', field: 'locationId' }],
    },
    // cam-1 has only cars and trucks (8 events, all in Berlin); cam-3's me-14 15 16 17 (the person is left out).
    expected: { status: 200, body: { 'loc-berlin': 8, 'loc-nyc': 4 } },
  },
  {
    name: 'filters on a numeric range with only a lower bound',
    body: { ...lots, filters: [range('occupied', 10)], aggregations: [lotTerms] },
    // 10, 12 and 30, all of lot-1 (10 is the inclusive bound).
    expected: { status: 200, body: { 'lot-1': 3 } },
  },
  {
    name: 'renders stats per lot as a one-row CSV',
    body: { ...lots, aggregations: [lotTerms, stats('occupied', { min: true, max: true, sum: true })] },
    accept: 'text/csv',
    // lot-1: 10 12 30; lot-2: 5 7; lot-9: 2.5 0.1. Averages are sum / count (52 / 3 as JavaScript writes it).
    expected: {
      status: 200,
      headers: { 'Content-Type': 'text/csv; charset=utf-8' },
      body:
        'lot-1 min,lot-1 max,lot-1 avg,lot-1 sum,lot-2 min,lot-2 max,lot-2 avg,lot-2 sum,lot-9 min,lot-9 max,lot-9 avg,lot-9 sum\r\n' +
        '10,30,17.333333333333332,52,5,7,6,12,0.1,2.5,1.3,2.6\r\n',
    },
  },
  {
    name: 'leaves stat cells empty in CSV for days without measurements',
    body: {
      ...lots,
      filters: [range('timestamp', '2024-03-30T00:00:00Z', '2024-04-03T00:00:00Z')],
      aggregations: [{ type: 'dateHistogram', interval: '1d' }, lotTerms, stats('occupied', { min: true })],
    },
    accept: 'text/csv',
    // Mar 30: lot-1 10 12, lot-2 5; Mar 31: lot-1 30, lot-2 7; Apr 1: lot-9 2.5 0.1; Apr 2: nothing (avg is asked by
    // default).
    expected: {
      status: 200,
      body:
        'timestamp,lot-1 min,lot-1 avg,lot-2 min,lot-2 avg,lot-9 min,lot-9 avg\r\n' +
        '2024-03-30T00:00:00.000Z,10,11,5,5,,\r\n2024-03-31T00:00:00.000Z,30,30,7,7,,\r\n' +
        '2024-04-01T00:00:00.000Z,,,,,0.1,1.3\r\n2024-04-02T00:00:00.000Z,,,,,,\r\n',
    },
  },
  {
    name: 'reads range bounds finer than a millisecond rounded up: from excludes pe-01 at 10:00:00.500, to includes pe-02 at 12:00:00.000',
    body: {
      source: 'parkingEvents',
      filters: [range('timestamp', '2024-03-30T10:00:00.5001Z', '2024-03-30T12:00:00.0001Z')],
      aggregations: [{ type: 'terms', field: 'spotId' }],
    },
    // pe-01 (s1) at .500 is before .5001; pe-02 (s2) at 12:00:00.000 is before 12:00:00.0001.
    expected: { status: 200, body: { s2: 1 } },
  },
  {
    name: 'counts two overlapping filters stages by label, each event in every bucket it matches',
    body: {
      source: 'movementEvents',
      aggregations: [
        { type: 'filters', filters: { berlin: terms('locationId', ['loc-berlin']), cars: terms('label', ['car']) } },
        {
          type: 'filters',
          filters: {
            early: range('timestamp', undefined, '2024-04-01T00:00:00Z'),
            late: range('timestamp', '2024-04-01T00:00:00Z'),
          },
        },
        label,
      ],
    },
    // Berlin before April: me-01 02 05 car, 03 06 person, 04 truck (me-07 has no label); from April: 09 10 car,
    // 11 13 person, 08 12 truck. Cars before April: me-01 02 05 14; from April: 09 10 16 17.
    expected: {
      status: 200,
      body: {
        'berlin early car': 3,
        'berlin early person': 2,
        'berlin early truck': 1,
        'berlin late car': 2,
        'berlin late person': 2,
        'berlin late truck': 2,
        'cars early car': 4,
        'cars late car': 4,
      },
    },
  },
  {
    name: 'goes back from north and south crossings to their events once each, by label',
    body: {
      aggregations: [
        nested('crossedPaths'),
        {
          type: 'filters',
          filters: { north: terms('crossedPaths.id', ['line-north']), south: terms('crossedPaths.id', ['line-south']) },
        },
        { type: 'reverseNested' },
        label,
      ],
    },
    // North: me-01 02 03 05 08 09 10 12 (two crossings, one event) 14 16: car 7, person 1, truck 2.
    // South: me-03 06 07 11 15 17: person 3, truck 1, car 1 (me-07 has no label).
    expected: {
      status: 200,
      body: {
        'north car': 7,
        'north person': 1,
        'north truck': 2,
        'south car': 1,
        'south person': 3,
        'south truck': 1,
      },
    },
  },
  {
    name: 'uses each terms aggregation its own joiner, direction still last',
    body: {
      aggregations: [
        nested('crossedPaths'),
        { type: 'terms', field: 'crossedPaths.end', keyJoiner: '-' },
        { type: 'terms', field: 'crossedPaths.id', keyJoiner: '+' },
        { type: 'reverseNested' },
        { ...label, keyJoiner: '~' },
      ],
    },
    // Parts line, label, direction: line-north's '+' after the line, the label's '~' before the direction.
    // A north: me-01 05 09 14 16 car, 03 person, 12 truck; A south: me-03 11 person (me-07 has no label);
    // B north: me-02 10 car, 08 12 truck; B south: me-17 car, 06 person, 15 truck.
    expected: {
      status: 200,
      body: {
        'line-north+car~A': 5,
        'line-north+person~A': 1,
        'line-north+truck~A': 1,
        'line-south+person~A': 2,
        'line-north+car~B': 2,
        'line-north+truck~B': 2,
        'line-south+car~B': 1,
        'line-south+person~B': 1,
        'line-south+truck~B': 1,
      },
    },
  },
];

/** Requests both engines must refuse the same way (400 before any engine runs, 422 from the engine). */
export const ERROR_CASES: readonly ConformanceCase[] = [
  {
    name: 'refuses an unknown field with 400',
    body: { aggregations: [{ type: 'terms', field: 'colour' }] },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'asks for source when the fields fit several collections',
    body: { aggregations: [{ type: 'terms', field: 'parkingLotId' }] },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses a nested field in a root filter',
    body: { filters: [terms('crossedPaths.id', ['line-north'])], aggregations: [label] },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses an interval it does not know',
    body: { source: 'movementEvents', aggregations: [{ type: 'dateHistogram', interval: '2w' }] },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses stats before the last aggregation',
    body: { ...lots, aggregations: [stats('occupied', {}), lotTerms] },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses three filters stages of 13 buckets: 13 + 169 + 2197 buckets exist whatever the documents',
    body: {
      source: 'movementEvents',
      aggregations: [0, 1, 2].map((s) => ({
        type: 'filters',
        filters: Object.fromEntries(Array.from({ length: 13 }, (_, j) => [`b${s}-${j}`, terms('label', ['car'])])),
      })),
    },
    expected: { status: 422, type: '/problems#too-many-buckets' },
  },
  {
    name: 'refuses 45 × 45 filters buckets under a histogram even when no document matches: 45 + 2025 buckets in the empty-bucket template',
    body: {
      source: 'movementEvents',
      locationIds: ['loc-b1'],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        ...[0, 1].map((s) => ({
          type: 'filters',
          filters: Object.fromEntries(Array.from({ length: 45 }, (_, j) => [`b${s}-${j}`, terms('label', ['car'])])),
        })),
      ],
    },
    // loc-b1 is organization B's: org A has no document there, and OpenSearch still counts the template.
    expected: { status: 422, type: '/problems#too-many-buckets' },
  },
];
