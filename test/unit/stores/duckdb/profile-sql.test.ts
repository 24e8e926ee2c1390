import { BIGINT, DOUBLE, DuckDBInstance, VARCHAR } from '@duckdb/node-api';
import fc from 'fast-check';
import { profileKeySql } from '#shared/stores/duckdb/report/sql/profile-sql';
import { SqlParams } from '#shared/stores/duckdb/report/sql/sql-params';
import { PROFILE_KEYS, type ProfileUnit } from '#shared/report/plan/plan';
import { ZoneOffsets } from '#shared/time/zone-offsets';

/**
 * The DuckDB key of a profile stage against the wall clock `Intl` reads, for random instants in zones
 * with DST in both hemispheres, :30 and :45 offsets, a 30-minute DST shift (Lord Howe) and instants
 * before 1970 (negative epoch ms). OpenSearch's java.time reads the same tz database.
 */
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Adelaide',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
];
const LO = Date.UTC(1960, 0, 1);
const HI = Date.UTC(2035, 0, 1);

function expected(unit: ProfileUnit, zone: string, t: number): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    hour: '2-digit',
    weekday: 'long',
  }).formatToParts(t);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return unit === 'hour' ? `${part('hour')}:00` : part('weekday').toLowerCase();
}

let db: DuckDBInstance;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
});
afterAll(() => db.closeSync());

test('matches the local hour and weekday Intl gives, DST changes and odd offsets included', async () => {
  const connection = await db.connect();
  const types = { VARCHAR, DOUBLE, BIGINT };
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ZONES),
      fc.constantFrom<ProfileUnit>('hour', 'weekday'),
      fc.array(fc.integer({ min: LO, max: HI }), { minLength: 1, maxLength: 50 }),
      async (zone, unit, instants) => {
        const params = new SqlParams();
        const periods = ZoneOffsets.scan(zone, LO, HI).periods;
        const key = profileKeySql({ unit, timeZone: zone }, periods, 't', params);
        const sql = `SELECT ${key} FROM (SELECT unnest([${instants.join(', ')}]::BIGINT[]) AS t)`;
        const rows = (
          await connection.runAndReadAll(
            sql,
            params.values.map((p) => p.value),
            params.values.map((p) => types[p.type]),
          )
        ).getRowsJS();
        expect(rows.map((r) => r[0])).toEqual(instants.map((t) => expected(unit, zone, t)));
      },
    ),
    { numRuns: 60 },
  );
  connection.closeSync();
});

test('the keys are the 24 hours and 7 ISO weekdays, Monday first', () => {
  expect(PROFILE_KEYS.hour).toHaveLength(24);
  expect([PROFILE_KEYS.hour[0], PROFILE_KEYS.hour[23]]).toEqual(['00:00', '23:00']);
  expect(expected('weekday', 'UTC', Date.UTC(2024, 3, 1))).toBe(PROFILE_KEYS.weekday[0]); // 2024-04-01 was a Monday
});
