import { type LocalService, startLocalService } from '../../../bin/dev/local-service';

/**
 * `npm start -- --simulate`: events for the seeded locations arrive through the ingest endpoint every
 * few seconds, so a report of the last minutes grows while the server runs.
 */
let service: LocalService;
let started: number;

beforeAll(async () => {
  // A high rate, so that every round carries events whatever the local hour of the sites.
  service = await startLocalService({ LOG_REQUESTS: '1' }, ['--simulate', '1', '--simulate-events-per-day', '2000000']);
  started = Date.now();
});
afterAll(() => service?.stop());

/** Movement events since the server started, by location, as the report API counts them. */
async function since(): Promise<Record<string, number>> {
  const response = await fetch(`${service.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      source: 'movementEvents',
      filters: [
        {
          type: 'range',
          field: 'timestamp',
          from: new Date(started - 1000).toISOString(),
          to: new Date(started + 3_600_000).toISOString(),
        },
      ],
      aggregations: [{ type: 'terms', field: 'locationId' }],
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, number>;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

test('streams new events for every seeded location through the ingest endpoint, round after round', async () => {
  // Act: wait for the first rounds, then for more
  const first = await until(since, (c) =>
    ['berlin-mall', 'nyc-garage', 'tokyo-station'].every((id) => (c[id] ?? 0) > 0),
  );
  const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
  const later = await until(since, (c) => total(c) > total(first));
  // Assess: the seeded locations only, through POST /ingest (the server's own log), without refusals
  expect(Object.keys(first).sort()).toEqual(['berlin-mall', 'nyc-garage', 'tokyo-station']);
  expect(total(later)).toBeGreaterThan(total(first));
  expect(service.output()).toMatch(/POST \/ingest\/movementEvents 200/);
  expect(service.output()).not.toMatch(/simulate: .*(rejected|HTTP)/);
});

describe('without LOG_REQUESTS', () => {
  let quiet: LocalService;
  beforeAll(async () => {
    // As a user starts it: without the tests' own Powertools level (test/setup/env.ts).
    quiet = await startLocalService({ POWERTOOLS_LOG_LEVEL: undefined }, ['--simulate', '1']);
  });
  afterAll(() => quiet?.stop());

  test('prints nothing after the banner: no line per round, none for a refused request', async () => {
    // Act: a few rounds, a 401 and a 400.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const refused = await Promise.all([
      fetch(`${quiet.url}/locations`),
      fetch(`${quiet.url}/reports:query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${quiet.token}`, 'content-type': 'application/json' },
        body: '{"aggregations":[]}',
      }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Assess: the banner (with the token) is the last thing printed.
    expect(refused.map((r) => r.status)).toEqual([401, 400]);
    expect(quiet.output().split('Ctrl-C stops the service.')[1]).toBe('\n');
  });
});
