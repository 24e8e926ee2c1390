import { currentOpenPeriod, wallClockToInstant } from '#shared/occupancy/opening-hours';

const at = (iso: string) => Date.parse(iso);
const iso = (p: { start: number; end: number } | undefined) =>
  p && { start: new Date(p.start).toISOString(), end: new Date(p.end).toISOString() };
const sunday = (open: string, close: string) => ({ sunday: [{ open, close }] });

describe('currentOpenPeriod', () => {
  test("opens at the wall-clock time of the location's zone on an ordinary day", () => {
    // 2024-06-02 is a Sunday; Berlin is +2 in summer.
    expect(iso(currentOpenPeriod(sunday('08:00', '20:00'), 'Europe/Berlin', at('2024-06-02T10:00:00Z')))).toEqual({
      start: '2024-06-02T06:00:00.000Z',
      end: '2024-06-02T18:00:00.000Z',
    });
  });

  test('is undefined before opening, at closing time and on a closed weekday', () => {
    const hours = sunday('08:00', '20:00');
    expect(currentOpenPeriod(hours, 'Europe/Berlin', at('2024-06-02T05:59:59Z'))).toBeUndefined();
    expect(currentOpenPeriod(hours, 'Europe/Berlin', at('2024-06-02T18:00:00Z'))).toBeUndefined();
    expect(currentOpenPeriod(hours, 'Europe/Berlin', at('2024-06-03T10:00:00Z'))).toBeUndefined();
  });

  test('uses the offset of that day on the European spring-forward day (08:00 CEST, not CET)', () => {
    // 2024-03-31: clocks go from 02:00 CET to 03:00 CEST; 08:00 CEST = 06:00Z.
    expect(iso(currentOpenPeriod(sunday('08:00', '20:00'), 'Europe/Berlin', at('2024-03-31T06:00:00Z')))?.start).toBe(
      '2024-03-31T06:00:00.000Z',
    );
    expect(currentOpenPeriod(sunday('08:00', '20:00'), 'Europe/Berlin', at('2024-03-31T05:59:00Z'))).toBeUndefined();
  });

  test('makes a whole day 23 hours on the spring-forward day and 25 hours on the fall-back day', () => {
    const spring = currentOpenPeriod(sunday('00:00', '24:00'), 'Europe/Berlin', at('2024-03-31T12:00:00Z'))!;
    const fall = currentOpenPeriod(sunday('00:00', '24:00'), 'Europe/Berlin', at('2024-10-27T12:00:00Z'))!;
    expect((spring.end - spring.start) / 3_600_000).toBe(23);
    expect((fall.end - fall.start) / 3_600_000).toBe(25);
    expect(iso(fall)).toEqual({ start: '2024-10-26T22:00:00.000Z', end: '2024-10-27T23:00:00.000Z' });
  });

  test('uses the offset of that day on the US spring-forward and fall-back days', () => {
    expect(iso(currentOpenPeriod(sunday('08:00', '20:00'), 'America/New_York', at('2024-03-10T15:00:00Z')))).toEqual({
      start: '2024-03-10T12:00:00.000Z',
      end: '2024-03-11T00:00:00.000Z',
    });
    expect(iso(currentOpenPeriod(sunday('08:00', '20:00'), 'America/New_York', at('2024-11-03T16:00:00Z')))).toEqual({
      start: '2024-11-03T13:00:00.000Z',
      end: '2024-11-04T01:00:00.000Z',
    });
  });

  test("keeps an overnight interval open after midnight, counted from the previous evening's opening", () => {
    // Saturday 22:00 to 03:00 in New York across the fall-back night: 02:00Z to 08:00Z (six hours).
    const hours = { saturday: [{ open: '22:00', close: '03:00' }] };
    expect(iso(currentOpenPeriod(hours, 'America/New_York', at('2024-11-03T07:30:00Z')))).toEqual({
      start: '2024-11-03T02:00:00.000Z',
      end: '2024-11-03T08:00:00.000Z',
    });
  });

  test('picks the interval that contains now when a day has several', () => {
    const hours = {
      sunday: [
        { open: '08:00', close: '12:00' },
        { open: '14:00', close: '18:00' },
      ],
    };
    expect(iso(currentOpenPeriod(hours, 'UTC', at('2024-06-02T15:00:00Z')))?.start).toBe('2024-06-02T14:00:00.000Z');
    expect(currentOpenPeriod(hours, 'UTC', at('2024-06-02T13:00:00Z'))).toBeUndefined();
  });
});

describe('wallClockToInstant', () => {
  test('maps a time skipped by the clocks to the instant they jump (02:30 on 2024-03-31 in Berlin → 03:00 CEST)', () => {
    expect(new Date(wallClockToInstant({ year: 2024, month: 3, day: 31 }, 150, 'Europe/Berlin')).toISOString()).toBe(
      '2024-03-31T01:00:00.000Z',
    );
  });

  test('maps a time that occurs twice to its first occurrence (01:30 on 2024-11-03 in New York → EDT)', () => {
    expect(new Date(wallClockToInstant({ year: 2024, month: 11, day: 3 }, 90, 'America/New_York')).toISOString()).toBe(
      '2024-11-03T05:30:00.000Z',
    );
  });

  test('maps 24:00 to the next midnight', () => {
    expect(new Date(wallClockToInstant({ year: 2024, month: 12, day: 31 }, 1440, 'Europe/Berlin')).toISOString()).toBe(
      '2024-12-31T23:00:00.000Z',
    );
  });
});

describe('wallClockToInstant at the edges of the time zone database', () => {
  test('maps a skipped midnight to the instant the clocks jump (Chile, 2024-09-08 00:00 → 01:00 -03)', () => {
    expect(new Date(wallClockToInstant({ year: 2024, month: 9, day: 8 }, 0, 'America/Santiago')).toISOString()).toBe(
      '2024-09-08T04:00:00.000Z',
    );
  });

  test('handles a half-hour DST shift (Lord Howe, 2024-10-06 02:15 does not exist → 02:30 +11)', () => {
    expect(
      new Date(wallClockToInstant({ year: 2024, month: 10, day: 6 }, 135, 'Australia/Lord_Howe')).toISOString(),
    ).toBe('2024-10-05T15:30:00.000Z');
    // 03:00 +11 exists once.
    expect(
      new Date(wallClockToInstant({ year: 2024, month: 10, day: 6 }, 180, 'Australia/Lord_Howe')).toISOString(),
    ).toBe('2024-10-05T16:00:00.000Z');
  });

  test('a day whose midnight is skipped lasts 23 hours', () => {
    const period = currentOpenPeriod(sunday('00:00', '24:00'), 'America/Santiago', at('2024-09-08T12:00:00Z'))!;
    expect(iso(period)).toEqual({ start: '2024-09-08T04:00:00.000Z', end: '2024-09-09T03:00:00.000Z' });
  });

  test('names an unknown time zone', () => {
    const open = () => currentOpenPeriod(sunday('08:00', '20:00'), 'Mars/Olympus_Mons', at('2024-06-02T10:00:00Z'));
    expect(open).toThrow(RangeError);
    expect(open).toThrow('unknown time zone Mars/Olympus_Mons');
  });
});
