import { ValidationError, type FieldError } from '#shared/errors';
import { generatedLocationId, uuidV5 } from '#shared/locations/ids';
import { validateImportFile } from '#shared/locations/import';
import { ORG_A, importFile } from '../../fixtures/locations';

function errorsOf(file: unknown): FieldError[] {
  try {
    validateImportFile(file);
  } catch (e) {
    if (e instanceof ValidationError) return [...e.errors];
    throw e;
  }
  throw new Error('expected the file to be refused');
}

const group = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  name: `G${id}`,
  lines: [{ trackingCameraId: 'c', lineId: 'l', inDirection: 'A' }],
  openingHours: { monday: [{ open: '08:00', close: '20:00' }] },
  ...extra,
});
const loc = (extra: Record<string, unknown> = {}) => ({
  id: 'L1',
  organizationId: ORG_A,
  type: 'store',
  timezone: 'Europe/Berlin',
  sensorGroups: [group(1)],
  ...extra,
});

describe('validateImportFile', () => {
  test('accepts the fixture file and keeps the ids it gives', () => {
    expect(validateImportFile(importFile).map((e) => e.id)).toEqual(['berlin-mall', 'nyc-store', 'berlin-mall']);
  });

  test('reports every schema error with a JSON Pointer into the file', () => {
    const errors = errorsOf({
      locations: [
        loc({ organizationId: 'not-a-uuid', timezone: 'Mars/Olympus', colour: 'red' }),
        loc({
          id: 'has space',
          sensorGroups: [
            group(-1, { lines: [] }),
            group(2, { openingHours: { monday: [{ open: '8:00', close: '25:00' }] } }),
          ],
        }),
      ],
    });
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: '/locations/0/colour', message: expect.stringContaining('unknown property') },
        { path: '/locations/0/organizationId', message: 'must be a UUID' },
        { path: '/locations/0/timezone', message: expect.stringContaining('IANA time zone') },
        { path: '/locations/1/id', message: expect.stringContaining('letters, digits') },
        { path: '/locations/1/sensorGroups/0/id', message: 'must be an integer ≥ 0' },
        { path: '/locations/1/sensorGroups/0/lines', message: 'must have at least 1 line' },
        {
          path: '/locations/1/sensorGroups/1/openingHours/monday/0/open',
          message: 'must be HH:MM from 00:00 to 23:59',
        },
        {
          path: '/locations/1/sensorGroups/1/openingHours/monday/0/close',
          message: 'must be HH:MM from 00:00 to 24:00',
        },
      ]),
    );
    expect(errors).toHaveLength(8);
  });

  test('refuses duplicate location ids within an organization, duplicate group ids and a line listed twice', () => {
    const twice = group(2, {
      lines: [
        { trackingCameraId: 'c', lineId: 'l', inDirection: 'A' },
        { trackingCameraId: 'c', lineId: 'l', inDirection: 'B' },
      ],
    });
    expect(errorsOf({ locations: [loc(), loc({ sensorGroups: [group(1), group(1), twice] })] })).toEqual([
      { path: '/locations/1/id', message: "duplicate location id 'L1' (also at /locations/0)" },
      {
        path: '/locations/1/sensorGroups/1/id',
        message: 'duplicate sensor group id 1 (also at /locations/1/sensorGroups/0)',
      },
      {
        path: '/locations/1/sensorGroups/2/lines/1',
        message: "line 'l' of camera 'c' is already at /locations/1/sensorGroups/2/lines/0",
      },
    ]);
  });

  test('reports schema errors and duplicates in one round, at the paths of the file', () => {
    // Location 1 breaks the schema; 0 and 2 share an id, and 2 lists a group twice.
    const errors = errorsOf({
      locations: [loc(), loc({ timezone: 'Mars/Olympus' }), loc({ sensorGroups: [group(1), group(1)] })],
    });
    expect(errors).toEqual([
      { path: '/locations/1/timezone', message: expect.stringContaining('IANA time zone') },
      { path: '/locations/2/id', message: "duplicate location id 'L1' (also at /locations/0)" },
      {
        path: '/locations/2/sensorGroups/1/id',
        message: 'duplicate sensor group id 1 (also at /locations/2/sensorGroups/0)',
      },
    ]);
  });

  test('allows the same location id in two organizations', () => {
    expect(
      validateImportFile({ locations: [loc(), loc({ organizationId: 'b0000000-0000-4000-8000-00000000000b' })] }),
    ).toHaveLength(2);
  });

  test('refuses empty and overlapping opening intervals, Sunday night into Monday included', () => {
    const openingHours = {
      monday: [
        { open: '02:00', close: '09:00' },
        { open: '08:00', close: '12:00' },
      ],
      tuesday: [{ open: '10:00', close: '10:00' }],
      sunday: [{ open: '22:00', close: '03:00' }],
    };
    expect(errorsOf({ locations: [loc({ sensorGroups: [group(1, { openingHours })] })] })).toEqual([
      {
        path: '/locations/0/sensorGroups/0/openingHours/tuesday/0/close',
        message: 'must differ from open (00:00 to 24:00 is a whole day)',
      },
      { path: '/locations/0/sensorGroups/0/openingHours/monday/1', message: 'overlaps monday 02:00-09:00' },
      { path: '/locations/0/sensorGroups/0/openingHours/monday/0', message: 'overlaps sunday 22:00-03:00' },
    ]);
  });

  test('accepts an overnight interval followed by a later one on the next day', () => {
    const openingHours = {
      friday: [{ open: '20:00', close: '02:00' }],
      saturday: [
        { open: '02:00', close: '04:00' },
        { open: '10:00', close: '24:00' },
      ],
    };
    expect(validateImportFile({ locations: [loc({ sensorGroups: [group(1, { openingHours })] })] })).toHaveLength(1);
  });

  test('generates stable ids for locations given without one, distinct for look-alikes', () => {
    const file = { locations: [loc({ id: undefined }), loc({ id: undefined }), loc({ id: undefined, type: 'kiosk' })] };
    const first = validateImportFile(file).map((e) => e.id);
    expect(validateImportFile(structuredClone(file)).map((e) => e.id)).toEqual(first);
    expect(new Set(first).size).toBe(3);
    expect(first[0]).toBe(generatedLocationId(ORG_A, 'store', 'Europe/Berlin', 0));
    expect(validateImportFile(file)[0]?.generatedId).toBe(true);
  });
});

describe('uuidV5', () => {
  test('matches the RFC 9562 example (www.example.com in the DNS namespace)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });
});
