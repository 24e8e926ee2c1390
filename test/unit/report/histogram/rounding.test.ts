import { createRounding } from '#shared/report/histogram/rounding';
import { ZoneOffsets, intlOffset } from '#shared/time/zone-offsets';
import { parseHistogramInterval } from '#shared/report/plan/time';

/**
 * Date histogram rounding as OpenSearch 2.19 does it. Every expected key below is worked out by
 * hand from the local calendar and the DST rules of the zone (2024: Berlin Mar 31 01:00Z and
 * Oct 27 01:00Z; New York Mar 10 07:00Z and Nov 3 06:00Z; Santiago Sep 8 04:00Z, at local midnight).
 */
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function rounding(interval: string, zone: string, around: string) {
  return createRounding(
    parseHistogramInterval(interval),
    zone,
    at(around) - 30 * 86_400_000,
    at(around) + 30 * 86_400_000,
  );
}

describe('zone offsets', () => {
  test('reads the offset of a zone at an instant from Intl', () => {
    expect(intlOffset('Europe/Berlin', at('2024-03-31T00:59:59.999Z'))).toBe(3_600_000);
    expect(intlOffset('Europe/Berlin', at('2024-03-31T01:00:00Z'))).toBe(7_200_000);
    expect(intlOffset('Asia/Kolkata', at('2024-01-01T00:00:00Z'))).toBe(19_800_000);
    expect(intlOffset('America/New_York', at('2024-01-01T00:00:00Z'))).toBe(-18_000_000);
  });

  test('locates each transition to the millisecond', () => {
    const offsets = ZoneOffsets.scan('Europe/Berlin', at('2024-01-01T00:00:00Z'), at('2024-12-31T00:00:00Z'));
    expect(offsets.periods.slice(1).map((p) => [iso(p.start), p.offset])).toEqual([
      ['2024-03-31T01:00:00.000Z', 7_200_000],
      ['2024-10-27T01:00:00.000Z', 3_600_000],
    ]);
  });
});

describe('calendar intervals follow the local calendar', () => {
  test('a Berlin day on the spring change is 23 hours long', () => {
    // Prepare
    const r = rounding('1d', 'Europe/Berlin', '2024-03-31T12:00:00Z');
    // Act
    const key = r.round(at('2024-03-31T12:00:00Z'));
    // Assess
    expect(iso(key)).toBe('2024-03-30T23:00:00.000Z');
    expect(iso(r.next(key))).toBe('2024-03-31T22:00:00.000Z');
  });

  test('a calendar week starts on Monday at local midnight', () => {
    const r = rounding('1w', 'Europe/Berlin', '2024-03-31T12:00:00Z');
    expect(iso(r.round(at('2024-03-31T12:00:00Z')))).toBe('2024-03-24T23:00:00.000Z');
    expect(iso(r.next(at('2024-03-24T23:00:00Z')))).toBe('2024-03-31T22:00:00.000Z');
  });

  test('a New York month starts at local midnight of the first, in that day’s offset', () => {
    const r = rounding('1M', 'America/New_York', '2024-11-15T00:00:00Z');
    expect(iso(r.round(at('2024-11-15T00:00:00Z')))).toBe('2024-11-01T04:00:00.000Z');
    expect(iso(r.next(at('2024-11-01T04:00:00Z')))).toBe('2024-12-01T05:00:00.000Z');
  });

  test('quarters and years start on local January, April, July, October firsts', () => {
    expect(iso(rounding('1q', 'Europe/Berlin', '2024-05-20T00:00:00Z').round(at('2024-05-20T00:00:00Z')))).toBe(
      '2024-03-31T22:00:00.000Z',
    );
    expect(iso(rounding('1y', 'Europe/Berlin', '2024-05-20T00:00:00Z').round(at('2024-05-20T00:00:00Z')))).toBe(
      '2023-12-31T23:00:00.000Z',
    );
  });

  test('a day whose midnight does not exist starts at the transition', () => {
    // Santiago skips from 00:00 to 01:00 local on 2024-09-08: the day starts at 01:00-03 = 04:00Z.
    expect(iso(rounding('1d', 'America/Santiago', '2024-09-08T12:00:00Z').round(at('2024-09-08T12:00:00Z')))).toBe(
      '2024-09-08T04:00:00.000Z',
    );
  });
});

describe('fixed intervals are aligned to the epoch in local time', () => {
  test('7-day buckets start on Thursday local midnight and shrink by the lost hour', () => {
    const r = rounding('7d', 'Europe/Berlin', '2024-04-01T12:00:00Z');
    expect(iso(r.round(at('2024-04-01T12:00:00Z')))).toBe('2024-03-27T23:00:00.000Z');
    expect(iso(r.next(at('2024-03-27T23:00:00Z')))).toBe('2024-04-03T22:00:00.000Z');
  });

  test('a rounded local time before the autumn overlap takes the earlier offset', () => {
    // 01:30Z is 02:30+01 (second pass); 90-minute grid → 01:30 local, which only existed at +02.
    const r = rounding('90m', 'Europe/Berlin', '2024-10-27T01:30:00Z');
    expect(iso(r.round(at('2024-10-27T01:30:00Z')))).toBe('2024-10-26T23:30:00.000Z');
    expect(iso(r.round(at('2024-10-27T00:30:00Z')))).toBe('2024-10-26T23:30:00.000Z');
    expect(iso(r.next(at('2024-10-26T23:30:00Z')))).toBe('2024-10-27T02:00:00.000Z');
  });

  test('a rounded local time inside the spring gap becomes the transition instant', () => {
    // 07:30Z is 03:30 EDT; the 2-hour grid gives 02:00 local, which New York skipped on 2024-03-10.
    const r = rounding('2h', 'America/New_York', '2024-03-10T07:30:00Z');
    expect(iso(r.round(at('2024-03-10T07:30:00Z')))).toBe('2024-03-10T07:00:00.000Z');
    expect(iso(r.next(at('2024-03-10T07:00:00Z')))).toBe('2024-03-10T08:00:00.000Z');
  });

  test('half-hour offsets keep 30-minute buckets on local half hours', () => {
    const r = rounding('30m', 'Asia/Kolkata', '2024-03-30T20:10:00Z');
    expect(iso(r.round(at('2024-03-30T20:10:00Z')))).toBe('2024-03-30T20:00:00.000Z');
    expect(iso(r.round(at('2024-03-30T20:45:00Z')))).toBe('2024-03-30T20:30:00.000Z');
  });

  test('UTC needs no time zone data at all', () => {
    const r = rounding('1h', 'UTC', '2024-03-10T07:30:00Z');
    expect(r.offsets.periods).toEqual([{ start: -Infinity, offset: 0 }]);
    expect(iso(r.round(at('2024-03-10T07:30:00Z')))).toBe('2024-03-10T07:00:00.000Z');
  });
});
