import { isoInZone, sameTimeDaysBefore } from '#shared/time/local-time';

describe('the same wall-clock time days before', () => {
  test('is 12:00 CET a week before 12:00 CEST, across the spring change: an hour more than a week of 24 hours', () => {
    // 2024-03-31 10:00Z is 12:00 CEST; 2024-03-24 12:00 CET is 11:00Z.
    expect(new Date(sameTimeDaysBefore(Date.parse('2024-03-31T10:00:00Z'), 'Europe/Berlin', 7)).toISOString()).toBe(
      '2024-03-24T11:00:00.000Z',
    );
    // New York had changed on March 10: 06:00 EDT both days.
    expect(new Date(sameTimeDaysBefore(Date.parse('2024-03-31T10:00:00Z'), 'America/New_York', 7)).toISOString()).toBe(
      '2024-03-24T10:00:00.000Z',
    );
  });

  test('is the instant the clocks jumped when the earlier day skipped that time', () => {
    // 2024-04-07 02:30 CEST; on March 31 Berlin went from 02:00 CET straight to 03:00 CEST at 01:00Z.
    expect(new Date(sameTimeDaysBefore(Date.parse('2024-04-07T00:30:00Z'), 'Europe/Berlin', 7)).toISOString()).toBe(
      '2024-03-31T01:00:00.000Z',
    );
  });

  test('keeps the seconds and milliseconds of the time of day', () => {
    expect(new Date(sameTimeDaysBefore(Date.parse('2024-06-12T07:32:10.250Z'), 'Asia/Kolkata', 1)).toISOString()).toBe(
      '2024-06-11T07:32:10.250Z',
    );
  });
});

describe('an instant on a zone’s clock', () => {
  test('writes the wall-clock time and the offset in force then', () => {
    expect(isoInZone(Date.parse('2024-10-27T00:30:00Z'), 'Europe/Berlin')).toBe('2024-10-27T02:30:00+02:00');
    expect(isoInZone(Date.parse('2024-10-27T01:30:00Z'), 'Europe/Berlin')).toBe('2024-10-27T02:30:00+01:00');
    expect(isoInZone(Date.parse('2024-03-01T00:00:00Z'), 'Asia/Kathmandu')).toBe('2024-03-01T05:45:00+05:45');
    expect(isoInZone(Date.parse('2024-03-01T00:00:00Z'), 'UTC')).toBe('2024-03-01T00:00:00+00:00');
  });
});
