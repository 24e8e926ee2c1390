import { axisLabel, tickSteps } from '../../../web/src/model/clock';

const H = 3_600;
const D = 86_400;
const at = (iso: string) => Date.parse(iso);

describe('the steps a time axis ticks at', () => {
  test('days: whole days only, whatever a DST change did to one of them', () => {
    // 2026-03-27 to 2026-04-01 in Berlin: the night of the 29th has 23 hours.
    const days = [
      '2026-03-27T00:00+01:00',
      '2026-03-28T00:00+01:00',
      '2026-03-29T00:00+01:00',
      '2026-03-30T00:00+02:00',
      '2026-03-31T00:00+02:00',
    ].map(at);
    expect(tickSteps(days).filter((s) => s < 30 * D)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15].map((d) => d * D));
  });

  test('hours: an hour and its multiples, never a quarter of one', () => {
    const hours = [0, 1, 2, 3].map((h) => at('2026-06-01T00:00Z') + h * H * 1000);
    const steps = tickSteps(hours);
    expect(steps.filter((s) => s < D)).toEqual([1, 2, 3, 4, 6, 8, 12].map((h) => h * H));
    expect(steps.every((s) => s >= H)).toBe(true);
  });

  test('weeks: a week, two and four', () => {
    const weeks = [0, 7, 14, 21].map((d) => at('2026-06-01T00:00Z') + d * D * 1000);
    expect(tickSteps(weeks).filter((s) => s < 30 * D)).toEqual([7 * D, 14 * D, 28 * D]);
  });

  test('months: months and years only', () => {
    const months = ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01'].map((d) => at(`${d}T00:00Z`));
    expect(tickSteps(months)[0]).toBe(30 * D);
  });

  test('a day step writes the day, in the reader’s locale and the location’s zone', () => {
    // 23:30 UTC on Sunday is Monday in Tokyo.
    expect(axisLabel(at('2026-06-07T23:30Z'), D, false, 'Asia/Tokyo', 'en-US')).toBe('Mon, Jun 8');
    expect(axisLabel(at('2026-06-07T23:30Z'), D, false, 'Asia/Tokyo', 'de-DE')).toBe('Mo., 8. Juni');
  });
});
