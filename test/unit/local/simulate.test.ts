import { documentsBetween } from '../../../bin/local/simulate';
import { prng, SITES } from '../../../bin/seed/generate';

/** The documents of one simulated round: inside its window, with ids, lot stats on the quarter hours. */
const ORG = '7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01';
const berlin = SITES.filter((s) => s.id === 'berlin-mall');

test('a round from 11:14:30 to 11:15:30 UTC holds the lot stats of 11:15 and events inside the window, each with an id', () => {
  // Prepare: 13:14:30 in Berlin (summer): 10 of the seed's 131.5 parts of a day's events are in that hour
  const from = Date.UTC(2024, 6, 1, 11, 14, 30);
  const to = from + 60_000;
  // Act: 131.5 × 600 events a day is 6,000 an hour at that hour, 100 in the minute
  const docs = documentsBetween({ organizationId: ORG, sites: berlin, eventsPerDay: 131.5 * 600 }, prng(1), from, to);
  // Assess
  expect(docs.parkingLotStats.map((d) => [d.id, d.timestamp])).toEqual([
    [`berlin-mall-lot-1:${Date.UTC(2024, 6, 1, 11, 15)}`, '2024-07-01T11:15:00.000Z'],
  ]);
  expect([99, 100, 101]).toContain(docs.movementEvents.length);
  const times = [...docs.movementEvents, ...docs.parkingEvents].map((d) => Date.parse(d.timestamp as string));
  expect(times.every((t) => t > from && t <= to)).toBe(true);
  const ids = [...docs.movementEvents, ...docs.parkingEvents].map((d) => d.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.every((id) => typeof id === 'string')).toBe(true);
});
