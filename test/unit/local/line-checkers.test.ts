import checkTask from '../../../bin/local/check-lines-worker';
import { checkedBatchOf } from '../../../bin/local/line-checkers';
import { checkLines } from '#shared/ingest/batch';
import { ndjsonLines } from '#shared/ingest/ndjson';

/**
 * The local server reads ingest bodies on worker threads (bin/local/line-checkers.ts): what a worker
 * sends back must be, once read on the main thread, what checkLines gives in-process.
 */
describe("a worker's reading of an ingest body", () => {
  const org = 'org-1';
  const tenancy = { organizationId: org, locationIds: new Set(['loc', 'other-loc']) };
  const body = [
    JSON.stringify({
      id: 'cam/1',
      locationId: 'loc',
      timestamp: '2024-03-01T01:00:00+01:00',
      label: 'car',
      crossedPaths: [{ id: 'n', end: 'A' }],
      polygons: [{ id: 'p', value: 2.5 }],
    }),
    '',
    '{not json',
    JSON.stringify({ organizationId: 'org-2', locationId: 'loc', timestamp: '2024-03-01T00:00:00Z' }),
    JSON.stringify({ locationId: 'elsewhere', timestamp: '2024-03-01T00:00:00Z' }),
    // -0 is a number JSON writes as 0: the worker must not change the document on the way.
    '{"locationId":"other-loc","timestamp":"2024-03-01T00:00:00Z","polygons":[{"id":"p","value":-0}]}',
    JSON.stringify({
      id: 'cam/1',
      locationId: 'loc',
      timestamp: '2024-03-01T00:00:00Z',
      label: 'car',
      crossedPaths: [{ id: 'n', end: 'A' }],
      polygons: [{ id: 'p', value: 2.5 }],
    }),
  ].join('\r\n');

  test('gives the same valid documents, identities and refused lines as checkLines', () => {
    // Act
    const viaWorker = checkedBatchOf(
      checkTask({ collection: 'movementEvents', body, organizationId: org, locationIds: [...tenancy.locationIds] }),
    );
    // Assess: lines 1, 6 and 7 (7 names 1's id with other content: the writer's conflict); 3, 4 and 5 refused
    const inProcess = checkLines('movementEvents', ndjsonLines(body), tenancy);
    expect(viaWorker.valid.map((v) => v.line)).toEqual([1, 6, 7]);
    expect(viaWorker.rejected.map((r) => r.line)).toEqual([3, 4, 5]);
    expect(viaWorker).toEqual(inProcess);
    const polygons = (viaWorker.valid[1]!.document as unknown as { polygons: { value: number }[] }).polygons;
    expect(Object.is(polygons[0]?.value, -0)).toBe(true);
  });
});
