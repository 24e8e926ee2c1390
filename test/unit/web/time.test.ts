import { maxAgeOf, refreshDelayMs } from '../../../web/src/model/api';
import { formatLocal, isTimeZone, isoWithOffset, parseDay, shiftDay, todayIn } from '../../../web/src/model/time';

describe('days and instants in a time zone', () => {
  test('reads calendar days and refuses dates that do not exist', () => {
    expect(parseDay('2024-02-29')).toEqual({ year: 2024, month: 2, day: 29 });
    expect(parseDay('2026-02-29')).toBeUndefined();
    expect(parseDay('2026-2-1')).toBeUndefined();
  });

  test('moves across month and year ends', () => {
    expect(shiftDay('2026-12-31', 1)).toBe('2027-01-01');
    expect(shiftDay('2026-03-01', -1)).toBe('2026-02-28');
  });

  test('knows today in a zone ahead of UTC', () => {
    expect(todayIn('Asia/Tokyo', Date.UTC(2026, 10, 23, 16, 0))).toBe('2026-11-24');
    expect(todayIn('America/New_York', Date.UTC(2026, 10, 23, 3, 0))).toBe('2026-11-22');
  });

  test('writes an instant on the zone’s wall clock with its offset', () => {
    expect(isoWithOffset(Date.UTC(2026, 2, 29, 1, 0), 'Europe/Berlin')).toBe('2026-03-29T03:00:00+02:00');
    expect(isoWithOffset(Date.UTC(2026, 0, 1, 3, 0), 'America/St_Johns')).toBe('2025-12-31T23:30:00-03:30');
    // Liberia kept its mean time (−00:44:30) until 1972: the offset is written with its seconds.
    expect(isoWithOffset(Date.UTC(1960, 0, 1, 12, 0), 'Africa/Monrovia')).toBe('1960-01-01T11:15:30-00:44:30');
    expect(formatLocal(Date.UTC(2026, 2, 29, 0, 59), 'Europe/Berlin')).toBe('2026-03-29 01:59');
  });

  test('tells a time zone from a typo', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone(' ')).toBe(false);
  });
});

describe('the live occupancy refresh', () => {
  test('reads max-age from Cache-Control', () => {
    expect(maxAgeOf('private, max-age=157')).toBe(157);
    expect(maxAgeOf('no-cache')).toBeUndefined();
    expect(maxAgeOf(null)).toBeUndefined();
  });

  test('asks again when the answer stops being current, else after one 5-minute period, within 5 s and 10 min', () => {
    expect(refreshDelayMs(157)).toBe(157_000);
    expect(refreshDelayMs(undefined)).toBe(300_000);
    expect(refreshDelayMs(0)).toBe(5_000);
    expect(refreshDelayMs(86_400)).toBe(600_000);
  });
});
