import { type LocalService, startLocalService } from '../../../bin/dev/local-service';

/**
 * The fine-histogram split report that took `npm start` down (issue 20: 1 s × label over 30 days,
 * `splitInterval: "2h"`, 225 bytes; 503 at 38.6 s, then the process at 100% CPU and out of memory):
 * refused with 422 from the request alone, while the server keeps answering `/health`; a report of
 * the same shape that may run (one day) is answered while `/health` still answers. How long the
 * event loop is held is a figure of the benchmarks (`npm run bench`), not a timing assert here: on a
 * loaded machine a second is not a second. `/health` is asked with a deadline of its own, so a
 * server that stops answering still fails the test.
 */
let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});

afterAll(() => service?.stop());

const DAY = 86_400_000;
/** Midnight UTC of today: the seed's 30 days end now. */
const today = Math.floor(Date.now() / DAY) * DAY;

const fineHistogram = (days: number) => ({
  source: 'movementEvents',
  splitInterval: '2h',
  filters: [
    {
      type: 'range',
      field: 'timestamp',
      from: new Date(today - days * DAY).toISOString(),
      to: new Date(today).toISOString(),
    },
  ],
  aggregations: [
    { type: 'dateHistogram', interval: '1s' },
    { type: 'terms', field: 'label' },
  ],
});

const report = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** `/health` every 100 ms until `until` settles: their statuses (each asked with a 10 s deadline). */
async function healthDuring(until: Promise<unknown>): Promise<{ statuses: number[] }> {
  let done = false;
  void until.finally(() => (done = true));
  const statuses: number[] = [];
  do {
    const response = await fetch(`${service.url}/health`, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    statuses.push(response.status);
    await new Promise((r) => setTimeout(r, 100));
  } while (!done);
  return { statuses };
}

describe('a split report with a fine histogram on npm start', () => {
  test.each([
    [30, {}],
    [7, { 'accept-encoding': 'gzip, br' }],
  ])(
    'is refused with 422 naming the interval and the limit (%i days, %j), /health answering meanwhile',
    async (days, headers) => {
      // Act
      const answer = report(fineHistogram(days), headers);
      const health = await healthDuring(answer);
      const response = await answer;
      // Assess
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({
        type: '/problems#too-many-buckets',
        maxAnswerBuckets: 262_140,
        errors: [
          {
            path: '/aggregations/0/interval',
            message: `"1s" makes ${(days * 86_400).toLocaleString('en')} time buckets over the time range; at most 262,140 fit in one answer`,
          },
        ],
      });
      expect(health.statuses.every((s) => s === 200)).toBe(true);
    },
  );

  test('over one day is answered, /health answering throughout', async () => {
    // Act
    const answer = report(fineHistogram(1), { accept: 'text/csv' });
    const health = await healthDuring(answer);
    const response = await answer;
    // Assess: 86,400 rows (and the header) of the day's seconds
    expect(response.status).toBe(200);
    expect((await response.text()).split('\r\n')).toHaveLength(86_402);
    expect(health.statuses.every((s) => s === 200)).toBe(true);
  }, 60_000);
});
