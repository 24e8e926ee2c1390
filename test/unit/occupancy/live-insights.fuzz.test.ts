import fc from 'fast-check';
import { createLiveInsightsHandler } from '../../../functions/live-insights';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { ORG_A } from '../../integration/report/fixtures';
import { invoke } from '../../../bin/dev/lambda-events';
import { group, location, MemoryStore } from './fakes';

/** Random query strings, path parameters and identities: every answer is a 2xx or a 4xx problem. */
const store = new MemoryStore([{ location: location('L1', ORG_A), sensorGroups: [group(1, 'cam-1')] }]);
const live = createLiveInsightsHandler({ store: () => store, now: () => Date.parse('2024-06-03T12:00:00Z') });
const list = createListLocationsHandler({ store: () => ({ listLocations: async () => [location('L1', ORG_A)] }) });

test('GET /locations/{id}/insights/live never answers 5xx, whatever the filter, id and identity', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.option(fc.oneof(fc.string(), fc.constantFrom('occupancy', 'occupancy,occupancy', ' occupancy ', ''))),
      fc.oneof(fc.string(), fc.constant('L1'), fc.string({ minLength: 1000, maxLength: 3000 })),
      fc.option(fc.oneof(fc.constant(ORG_A), fc.uuid(), fc.string())),
      async (filter, locationId, org) => {
        const response = await invoke(live, {
          method: 'GET',
          path: `/locations/${encodeURIComponent(locationId)}/insights/live`,
          pathParameters: { locationId },
          ...(filter === null ? {} : { query: { filter } }),
          org,
        });
        expect([200, 400, 401, 404]).toContain(response.status);
        if (response.status !== 200) expect(response.headers['content-type']).toBe('application/problem+json');
      },
    ),
    { numRuns: 300 },
  );
});

test('GET /locations never answers 5xx, whatever the identity', async () => {
  await fc.assert(
    fc.asyncProperty(fc.option(fc.oneof(fc.uuid(), fc.string())), async (org) => {
      expect([200, 401]).toContain((await invoke(list, { method: 'GET', path: '/locations', org })).status);
    }),
    { numRuns: 100 },
  );
});
