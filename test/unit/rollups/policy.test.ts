import { buildPlan } from '#shared/report/plan/build-plan';
import { grainOf } from '#shared/rollups/match';
import { chooseRollup } from '#shared/rollups/read';
import { dirtyRanges, grainsOf } from '#shared/rollups/upkeep';

const MIN = 60_000;
const QUARTER = 15 * MIN;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const march = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-04T00:00:00Z' } as const;
const plan = (timeZone: string) =>
  buildPlan({
    source: 'movementEvents',
    filters: [march],
    aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone }],
  });

describe('the grain floor', () => {
  test('floors to the grain, before 1970 too, and keeps Infinity (a watermark with nothing dirty)', () => {
    expect(grainOf(Date.UTC(2024, 2, 1, 10, 44, 59), QUARTER)).toBe(Date.UTC(2024, 2, 1, 10, 30));
    expect(grainOf(-1, QUARTER)).toBe(-QUARTER);
    expect(grainOf(Infinity, DAY)).toBe(Infinity);
  });

  test('grainsOf: distinct grains, ascending, none outside the rollups’ window', () => {
    const t = Date.UTC(2024, 2, 1, 10);
    expect(grainsOf([t + 20 * MIN, t, t + 14 * MIN, Date.UTC(1999, 0, 1)], QUARTER)).toEqual([t, t + QUARTER]);
  });
});

describe('dirtyRanges', () => {
  const t = Date.UTC(2024, 2, 1);
  test('widens each grain to whole rows of the level and joins those closer than the gap', () => {
    // Quarters at 10:15 and 11:45 at the hour level: 10:00–11:00 and 11:00–12:00, 0 apart: one range under
    // any gap, two under none.
    const quarters = [t + 10 * HOUR + QUARTER, t + 11 * HOUR + 3 * QUARTER];
    expect(dirtyRanges(quarters, QUARTER, HOUR, QUARTER)).toEqual([{ from: t + 10 * HOUR, to: t + 12 * HOUR }]);
    expect(dirtyRanges(quarters, QUARTER, HOUR, 0)).toHaveLength(2);
    // Quarters at 01:00 and 05:00: 4 hours apart; joined under a 1-day gap, apart under a 1-hour one.
    const grains = [t + HOUR, t + 5 * HOUR];
    expect(dirtyRanges(grains, QUARTER, QUARTER, DAY)).toEqual([{ from: t + HOUR, to: t + 5 * HOUR + QUARTER }]);
    expect(dirtyRanges(grains, QUARTER, QUARTER, HOUR)).toEqual([
      { from: t + HOUR, to: t + HOUR + QUARTER },
      { from: t + 5 * HOUR, to: t + 5 * HOUR + QUARTER },
    ]);
    // At the day level both are the one day.
    expect(dirtyRanges(grains, QUARTER, DAY, HOUR)).toEqual([{ from: t, to: t + DAY }]);
  });
});

describe('chooseRollup', () => {
  const from = Date.UTC(2024, 2, 1);
  test('a UTC day report with nothing dirty reads the day rows over the whole range', () => {
    expect(chooseRollup(plan('UTC'), QUARTER, Infinity)).toEqual({ level: DAY, from, to: from + 3 * DAY });
  });

  test('a watermark in the third day cuts the day rows at its midnight', () => {
    expect(chooseRollup(plan('UTC'), QUARTER, from + 2 * DAY + 5 * HOUR + 7 * MIN)).toEqual({
      level: DAY,
      from,
      to: from + 2 * DAY,
    });
  });

  test('Berlin days read hours (a day row is a UTC day); Kolkata days, quarters (+05:30)', () => {
    expect(chooseRollup(plan('Europe/Berlin'), QUARTER, Infinity)).toMatchObject({ level: HOUR });
    expect(chooseRollup(plan('Asia/Kolkata'), QUARTER, Infinity)).toMatchObject({ level: QUARTER });
  });

  test('a watermark before the range reads raw, saying up to when the rollups are complete', () => {
    expect(chooseRollup(plan('UTC'), QUARTER, from - DAY)).toBe(
      `the rollups are complete only up to ${new Date(from - DAY).toISOString()}, before this time range`,
    );
  });
});
