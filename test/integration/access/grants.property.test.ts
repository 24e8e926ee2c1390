import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { parseDocument } from '#shared/documents/documents';
import { applyImport, validateImportFile } from '#shared/locations/import';
import { TableLocationStore } from '#shared/locations/table-store';
import { refreshOccupancy } from '#shared/occupancy/refresh';
import type { ReportEngine } from '#shared/stores/store';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { indexDocuments } from '#shared/stores/opensearch/write';
import { FileItemTable } from '../../../bin/local/file-table';
import { type HttpRequest, type HttpResponse, invoke } from '../../../bin/dev/lambda-events';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { createLiveInsightsHandler } from '../../../functions/live-insights';
import { createManageLocationsHandler } from '../../../functions/manage-locations';
import { createOccupancyHistoryHandler } from '../../../functions/occupancy-history';
import { createQueryReportHandler } from '../../../functions/query-report';
import { createSitesOverviewHandler } from '../../../functions/sites-overview';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * Location grants, as a property: for random organizations, random grants (none: every location; a
 * subset; the empty one) and random requests to every endpoint that reads, on both engines, nothing
 * outside the grant ever comes back, and everything inside it does. Three organizations have the same
 * four location ids (a leak across organizations changes a number too); each location's events carry
 * a label naming their organization and location, and each has one sensor group whose id is the
 * location's number, so any document, location or occupancy entry in an answer says whose it is.
 * The expected counts are the fixture's, by hand: location Ln of organization o has n + o events.
 */
const ORGS = [
  'a1000000-0000-4000-8000-000000000001',
  'a2000000-0000-4000-8000-000000000002',
  'a3000000-0000-4000-8000-000000000003',
];
const LOCATIONS = ['l1', 'l2', 'l3', 'l4'] as const;
const DAY = '2024-05-06'; // a Monday
const NOW = Date.parse(`${DAY}T12:00:00Z`);
const label = (org: number, loc: number) => `o${org}-l${loc}`;
const eventsOf = (org: number, loc: number) => loc + org;

const client = testClient();
const prefix = uniquePrefix('grants');
let duckdb: DuckDBInstance;
let dir: string;
let table: FileItemTable;
let store: TableLocationStore;
let engines: Record<'duckdb' | 'opensearch', ReportEngine>;

beforeAll(async () => {
  const allDay = { monday: [{ open: '00:00', close: '24:00' }] };
  const file = {
    locations: ORGS.flatMap((organizationId) =>
      LOCATIONS.map((id, i) => ({
        id,
        name: `Site ${id}`,
        organizationId,
        type: 'store',
        timezone: 'UTC',
        sensorGroups: [
          {
            id: i + 1,
            name: `Group ${id}`,
            capacity: 10,
            lines: [{ trackingCameraId: `cam-${id}`, lineId: 'door', inDirection: 'A' as const }],
            openingHours: allDay,
          },
        ],
      })),
    ),
  };
  dir = mkdtempSync(join(tmpdir(), 'lrs-grants-'));
  table = FileItemTable.open(join(dir, 'locations.jsonl'));
  store = new TableLocationStore(table);
  await applyImport(store, validateImportFile(file), { now: new Date('2024-01-01T00:00:00Z') });
  // Ln of organization o: n + o people in (line door, side A) between 08:00 and 10:00 of the day.
  const docs = ORGS.flatMap((organizationId, o) =>
    LOCATIONS.flatMap((locationId, l) =>
      Array.from({ length: eventsOf(o, l + 1) }, (_, k) =>
        parseDocument(
          'movementEvents',
          {
            organizationId,
            locationId,
            trackingCameraId: `cam-${locationId}`,
            label: label(o, l + 1),
            timestamp: new Date(Date.parse(`${DAY}T08:00:00Z`) + k * 600_000).toISOString(),
            crossedPaths: [{ id: 'door', end: 'A' }],
            polygons: [],
          },
          `/${o}/${l}/${k}`,
        ),
      ),
    ),
  );
  duckdb = await openDuckDb(':memory:');
  await ingestDocuments(duckdb, 'movementEvents', docs);
  await ensureIndexTemplates(client, prefix, { replicas: 0 });
  const indexed = await indexDocuments(client, 'movementEvents', docs, { indexPrefix: prefix, refresh: true });
  if (indexed.failures.length > 0) throw new Error(JSON.stringify(indexed.failures));
  engines = {
    duckdb: new DuckDbEngine(duckdb, { maxBuckets: TEST_MAX_BUCKETS }),
    opensearch: new OpenSearchEngine(client, { indexPrefix: prefix, maxBuckets: TEST_MAX_BUCKETS }),
  };
  // Live occupancy of every group at noon, counted on one engine (the refresh's; the reads only read the cache).
  const summary = await refreshOccupancy({ store, engine: engines.duckdb }, NOW);
  if (summary.failedLocations > 0 || summary.entriesWritten !== 12)
    throw new Error(`refresh: ${JSON.stringify(summary)}`);
}, 300_000);

afterAll(async () => {
  table.close();
  rmSync(dir, { recursive: true, force: true });
  duckdb.closeSync();
  await deleteIndices(client, prefix);
  await client.close();
});

/** What a caller is: one organization, and a grant (undefined: every location). */
interface Caller {
  readonly org: number;
  readonly grant: readonly string[] | undefined;
}

const granted = (caller: Caller, id: string) => caller.grant === undefined || caller.grant.includes(id);
const visible = (caller: Caller) => LOCATIONS.filter((id) => granted(caller, id));

/** Every endpoint that reads, as a request of the caller on an engine. */
type Ask =
  | { kind: 'list' }
  | { kind: 'overview' }
  | { kind: 'location' | 'changes' | 'live' | 'history'; id: string }
  | {
      kind: 'report';
      locationIds?: readonly string[];
      shape: 'terms' | 'histogram' | 'nested' | 'split' | 'compare';
      csv: boolean;
    };

const arbitraryCaller = fc.record({
  org: fc.integer({ min: 0, max: ORGS.length - 1 }),
  grant: fc.option(fc.subarray([...LOCATIONS, 'elsewhere']), { nil: undefined }),
});
const arbitraryAsk: fc.Arbitrary<Ask> = fc.oneof(
  fc.constant({ kind: 'list' as const }),
  fc.constant({ kind: 'overview' as const }),
  fc.record({
    kind: fc.constantFrom('location' as const, 'changes' as const, 'live' as const, 'history' as const),
    id: fc.constantFrom(...LOCATIONS, 'nowhere'),
  }),
  fc.record({
    kind: fc.constant('report' as const),
    locationIds: fc.option(fc.subarray([...LOCATIONS], { minLength: 1 }), { nil: undefined }),
    shape: fc.constantFrom(
      'terms' as const,
      'histogram' as const,
      'nested' as const,
      'split' as const,
      'compare' as const,
    ),
    csv: fc.boolean(),
  }),
);

const DAY_RANGE = { type: 'range', field: 'timestamp', from: `${DAY}T00:00:00Z`, to: `${DAY}T12:00:00Z` };
function reportBody(ask: Extract<Ask, { kind: 'report' }>): Record<string, unknown> {
  const byLabel = { type: 'terms', field: 'label' };
  const aggregations = {
    terms: [byLabel],
    histogram: [{ type: 'dateHistogram', interval: '1h' }, byLabel],
    nested: [byLabel, { type: 'nested', path: 'crossedPaths' }, { type: 'terms', field: 'crossedPaths.end' }],
    split: [{ type: 'dateHistogram', interval: '1h' }, byLabel],
    compare: [{ type: 'dateHistogram', interval: '1h' }, byLabel],
  }[ask.shape];
  return {
    source: 'movementEvents',
    filters: [DAY_RANGE],
    aggregations,
    ...(ask.shape === 'split' ? { splitInterval: '2h' } : {}),
    ...(ask.shape === 'compare' ? { compare: { offset: '1d' } } : {}),
    ...(ask.locationIds ? { locationIds: ask.locationIds } : {}),
  };
}

async function request(engine: ReportEngine, caller: Caller, ask: Ask): Promise<HttpResponse> {
  const who: HttpRequest = { org: ORGS[caller.org]!, ...(caller.grant ? { locations: caller.grant } : {}) };
  const one = (path: string, id: string, query?: Record<string, string>): HttpRequest => ({
    ...who,
    method: 'GET',
    path,
    pathParameters: { locationId: id },
    ...(query ? { query } : {}),
  });
  const now = () => NOW;
  switch (ask.kind) {
    case 'list':
      return invoke(createListLocationsHandler({ store: () => store }), { ...who, method: 'GET', path: '/locations' });
    case 'overview':
      return invoke(createSitesOverviewHandler({ store: () => store, engine: () => engine, now }), {
        ...who,
        method: 'GET',
        path: '/insights/overview',
      });
    case 'location':
      return invoke(
        createManageLocationsHandler({ store: () => store, refresh: () => async () => undefined }),
        one(`/locations/${ask.id}`, ask.id),
      );
    case 'changes':
      return invoke(
        createManageLocationsHandler({ store: () => store, refresh: () => async () => undefined }),
        one(`/locations/${ask.id}/changes`, ask.id),
      );
    case 'live':
      return invoke(
        createLiveInsightsHandler({ store: () => store, now }),
        one(`/locations/${ask.id}/insights/live`, ask.id, { filter: 'occupancy' }),
      );
    case 'history':
      return invoke(
        createOccupancyHistoryHandler({ store: () => store, engine: () => engine }),
        one(`/locations/${ask.id}/insights/history`, ask.id, {
          filter: 'occupancy',
          from: `${DAY}T08:00:00Z`,
          to: `${DAY}T12:00:00Z`,
          interval: '1h',
        }),
      );
    case 'report':
      return invoke(createQueryReportHandler({ engine: () => engine }), {
        ...who,
        method: 'POST',
        path: '/reports:query',
        body: reportBody(ask),
        headers: { accept: ask.csv ? 'text/csv' : 'application/json' },
      });
  }
}

/** The labels (`o1-l2`) an answer holds, wherever they are (series names, CSV headers). */
const labelsIn = (text: string): string[] => [...new Set(text.match(/o\d-l\d/g) ?? [])].sort();

function check(caller: Caller, ask: Ask, response: HttpResponse): void {
  const mine = visible(caller);
  const exists = (id: string) => (LOCATIONS as readonly string[]).includes(id);
  switch (ask.kind) {
    case 'list': {
      expect(response.json<{ id: string; organizationId: string }[]>().map((l) => [l.id, l.organizationId])).toEqual(
        mine.map((id) => [id, ORGS[caller.org]]),
      );
      return;
    }
    case 'overview': {
      expect(response.json<{ locations: { id: string }[] }>().locations.map((l) => l.id)).toEqual(mine);
      return;
    }
    case 'location':
    case 'changes':
    case 'live':
    case 'history': {
      const allowed = exists(ask.id) && granted(caller, ask.id);
      expect(response.status).toBe(allowed ? 200 : 404);
      if (!allowed) return;
      const group = LOCATIONS.indexOf(ask.id as (typeof LOCATIONS)[number]) + 1;
      if (ask.kind === 'location')
        expect(response.json()).toMatchObject({
          id: ask.id,
          organizationId: ORGS[caller.org],
          sensorGroups: [{ id: group }],
        });
      if (ask.kind === 'live') {
        // All of the group's people came in before noon: n + o of 10.
        const people = eventsOf(caller.org, group);
        expect(response.json()).toEqual({
          insights: {
            occupancy: [
              {
                sensorGroup: { id: group, name: `Group ${ask.id}` },
                occupancy: people,
                capacity: 10,
                utilization: people / 10,
              },
            ],
          },
        });
      }
      if (ask.kind === 'history') {
        const history = response.json<{
          insights: { occupancy: { sensorGroup: { id: number }; buckets: { peak?: number }[] }[] };
        }>();
        expect(history.insights.occupancy.map((g) => g.sensorGroup.id)).toEqual([group]);
        expect(Math.max(...history.insights.occupancy[0]!.buckets.map((b) => b.peak ?? 0))).toBe(
          eventsOf(caller.org, group),
        );
      }
      return;
    }
    case 'report': {
      const outside = (ask.locationIds ?? []).filter((id) => !granted(caller, id));
      if (outside.length > 0) {
        expect([response.status, response.json<{ errors: { path: string }[] }>().errors.length]).toEqual([
          403,
          outside.length,
        ]);
        return;
      }
      expect(response.status).toBe(200);
      const asked = ask.locationIds ?? mine;
      const expected = asked
        .filter((id) => granted(caller, id))
        .map((id) => label(caller.org, LOCATIONS.indexOf(id as (typeof LOCATIONS)[number]) + 1))
        .sort();
      expect(labelsIn(response.body)).toEqual(expected);
      if (ask.shape === 'terms' && !ask.csv) {
        // Every event of the granted locations, none of anyone else's.
        expect(response.json()).toEqual(
          Object.fromEntries(expected.map((l) => [l, eventsOf(Number(l[1]), Number(l[4]))])),
        );
      }
    }
  }
}

describe.each(['duckdb', 'opensearch'] as const)('location grants on %s', (name) => {
  test('no endpoint answers a document, a location or an occupancy outside the grant, and every one inside it', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCaller, arbitraryAsk, async (caller, ask) => {
        const response = await request(engines[name], caller, ask);
        check(caller, ask, response);
      }),
      { numRuns: 150 },
    );
  });
});
