/**
 * The hostile reports of issue 12, over the 30 days of the DuckDB benchmark set (bench/duckdb.ts:
 * 5 sites, 10 cameras, 4 labels, lines `entrance` and `ramp`). Their `filters` buckets overlap
 * broadly, as an attacker's would: a document falls in most buckets of every stage, so a compilation
 * that makes one row per document and bucket costs documents × the product of the bucket counts.
 */
export const HOSTILE_ORG = '00000000-0000-4000-8000-000000000003';
const NOW = Date.UTC(2024, 5, 1);
const DAYS = 30;
const FROM = NOW - DAYS * 86_400_000;
const HOUR = 3_600_000;

const SITES = ['berlin-mall', 'nyc-garage', 'tokyo-station', 'sydney-stadium', 'sao-paulo-plaza'];
const LABELS = ['person', 'car', 'bicycle', 'truck'];

type Filter = Record<string, unknown>;
const iso = (ms: number) => new Date(ms).toISOString();

/** n buckets `[FROM + j·step, NOW)` on the timestamp: bucket j holds all but the first j steps. */
const laterThan = (n: number, step: number): Record<string, Filter> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, j) => [
      `t${j}`,
      { type: 'range', field: 'timestamp', from: iso(FROM + j * step), to: iso(NOW) },
    ]),
  );

/** n buckets, each all sites but one (in turn) and so most documents. */
const mostSites = (n: number): Record<string, Filter> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, j) => [
      `s${j}`,
      { type: 'terms', field: 'locationId', values: SITES.filter((_, k) => k !== j % SITES.length) },
    ]),
  );

/** n buckets of cameras: every camera but one. */
const mostCameras = (n: number): Record<string, Filter> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, j) => {
      const cameras = SITES.flatMap((s) => [`${s}-cam-1`, `${s}-cam-2`]);
      return [
        `c${j}`,
        { type: 'terms', field: 'trackingCameraId', values: cameras.filter((_, k) => k !== j % cameras.length) },
      ];
    }),
  );

/** n buckets of labels: every label but one. */
const mostLabels = (n: number): Record<string, Filter> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, j) => [
      `l${j}`,
      { type: 'terms', field: 'label', values: LABELS.filter((_, k) => k !== j % LABELS.length) },
    ]),
  );

const filters = (buckets: Record<string, Filter>) => ({ type: 'filters', filters: buckets });
const within = [{ type: 'range', field: 'timestamp', from: iso(FROM), to: iso(NOW) }];

export interface HostileCase {
  readonly name: string;
  readonly body: Record<string, unknown>;
}

export const HOSTILE_CASES: readonly HostileCase[] = [
  {
    name: '[filters(10), filters(10), filters(10), terms label]',
    body: {
      source: 'movementEvents',
      filters: within,
      aggregations: [
        filters(laterThan(10, 12 * HOUR)),
        filters(mostSites(10)),
        filters(mostCameras(10)),
        { type: 'terms', field: 'label' },
      ],
    },
  },
  {
    name: '[filters(30), filters(30), terms label]',
    body: {
      source: 'movementEvents',
      filters: within,
      aggregations: [filters(laterThan(30, 6 * HOUR)), filters(mostCameras(30)), { type: 'terms', field: 'label' }],
    },
  },
  {
    name: '[filters(100), filters(100), filters(100)]',
    body: {
      source: 'movementEvents',
      filters: within,
      aggregations: [filters(laterThan(100, 2 * HOUR)), filters(mostSites(100)), filters(mostLabels(100))],
    },
  },
  {
    name: 'reverseNested: [filters(10), nested, terms line, terms direction, reverseNested, filters(10), terms label]',
    body: {
      source: 'movementEvents',
      filters: within,
      aggregations: [
        filters(mostSites(10)),
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.id' },
        { type: 'terms', field: 'crossedPaths.end' },
        { type: 'reverseNested' },
        filters(laterThan(10, 24 * HOUR)),
        { type: 'terms', field: 'label' },
      ],
    },
  },
  {
    name: 'stats under filters: [nested polygons, filters(40), filters(40), stats value]',
    body: {
      source: 'movementEvents',
      filters: within,
      aggregations: [
        { type: 'nested', path: 'polygons' },
        filters(
          Object.fromEntries(
            Array.from({ length: 40 }, (_, j) => [`v${j}`, { type: 'range', field: 'polygons.value', from: j }]),
          ),
        ),
        filters(
          Object.fromEntries(
            Array.from({ length: 40 }, (_, j) => [`w${j}`, { type: 'range', field: 'polygons.value', to: 2000 - j }]),
          ),
        ),
        { type: 'stats', field: 'polygons.value', sum: true, min: true, max: true },
      ],
    },
  },
  {
    // The one shape DuckDB compiles stage by stage (a second nested after reverseNested): about a
    // minute of work on an idle machine, which only the deadline bounds.
    name: 'reaches the deadline: [nested, reverseNested, nested polygons, filters(30), filters(30)]',
    body: {
      source: 'movementEvents',
      filters: within,
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'reverseNested' },
        { type: 'nested', path: 'polygons' },
        filters(
          Object.fromEntries(
            Array.from({ length: 30 }, (_, j) => [`v${j}`, { type: 'range', field: 'polygons.value', from: j }]),
          ),
        ),
        filters(
          Object.fromEntries(
            Array.from({ length: 30 }, (_, j) => [`w${j}`, { type: 'range', field: 'polygons.value', to: 2000 - j }]),
          ),
        ),
      ],
    },
  },
];

/** A report of issue 20 over the last `days` whole UTC days before `now` (the seeded data of `npm start` ends now). */
export interface FineHistogramCase {
  readonly name: string;
  readonly body: (now: number) => Record<string, unknown>;
}

/**
 * Issue 20's reproducer (225 bytes): `dateHistogram 1s` × `terms label`, `splitInterval: "2h"`, over
 * 7, 14 and 30 days (604,800 to 2,592,000 rows, over the 262,140 buckets an answer may hold), and one
 * day (86,400 rows) as the control that is answered.
 */
export const FINE_HISTOGRAM_CASES: readonly FineHistogramCase[] = [1, 7, 14, 30].map((days) => ({
  name: `${days === 1 ? 'control: ' : ''}1 s × label over ${days} day${days === 1 ? '' : 's'}, split by 2 h`,
  body: (now) => {
    const to = Math.floor(now / 86_400_000) * 86_400_000;
    return {
      source: 'movementEvents',
      splitInterval: '2h',
      filters: [{ type: 'range', field: 'timestamp', from: iso(to - days * 86_400_000), to: iso(to) }],
      aggregations: [
        { type: 'dateHistogram', interval: '1s' },
        { type: 'terms', field: 'label' },
      ],
    };
  },
}));
