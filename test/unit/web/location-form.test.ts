import { bodyOf, emptyGroup, fieldFor, valuesOf } from '../../../web/src/model/location-form';
import { roleOfToken } from '../../../web/src/model/role';

const resource = {
  id: 'lisbon',
  name: 'Lisbon store',
  type: 'store',
  timezone: 'Europe/Lisbon',
  sensorGroups: [
    {
      id: 1,
      name: 'Floor',
      capacity: 30,
      lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'B' as const }],
      openingHours: {
        monday: [
          { open: '08:00', close: '12:00' },
          { open: '13:00', close: '02:00' },
        ],
        sunday: [],
      },
    },
  ],
};

describe('the location form of the admin screen', () => {
  test('edits what GET answered and sends the same desired state back', () => {
    // Act
    const values = valuesOf(resource);
    // Assess
    expect(values.groups[0]!.hours.monday).toBe('08:00-12:00, 13:00-02:00');
    expect(values.groups[0]!.hours.tuesday).toBe('');
    expect(bodyOf(values, { withId: false })).toEqual({
      name: 'Lisbon store',
      type: 'store',
      timezone: 'Europe/Lisbon',
      sensorGroups: [
        {
          id: 1,
          name: 'Floor',
          capacity: 30,
          lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'B' }],
          openingHours: {
            monday: [
              { open: '08:00', close: '12:00' },
              { open: '13:00', close: '02:00' },
            ],
          },
        },
      ],
    });
  });

  test('sends what is typed as it is, so the service names what is wrong: no capacity, a capacity of text, a piece of hours', () => {
    const values = valuesOf(resource);
    values.groups[0]!.capacity = '';
    expect((bodyOf(values, { withId: true }).sensorGroups as { capacity?: unknown }[])[0]!.capacity).toBeUndefined();
    values.groups[0]!.capacity = 'lots';
    values.groups[0]!.hours.friday = '9 to 5';
    const group = (bodyOf(values, { withId: true }).sensorGroups as Record<string, unknown>[])[0]!;
    expect([group.capacity, (group.openingHours as Record<string, unknown>).friday]).toEqual([
      'lots',
      [{ open: '9 to 5', close: '' }],
    ]);
  });

  test('puts an error at the field whose pointer is the longest prefix of its path', () => {
    const fields = ['/name', '/sensorGroups/0/capacity', '/sensorGroups/0/openingHours/monday', '/sensorGroups/0'];
    expect(fieldFor(fields, '/sensorGroups/0/openingHours/monday/1/close')).toBe('/sensorGroups/0/openingHours/monday');
    expect(fieldFor(fields, '/sensorGroups/0/capacity')).toBe('/sensorGroups/0/capacity');
    expect(fieldFor(fields, '/sensorGroups/0/lines/0')).toBe('/sensorGroups/0');
    expect(fieldFor(fields, '/sensorGroups/01')).toBeUndefined();
    expect(fieldFor(fields, '/timezone')).toBeUndefined();
  });

  test('starts a new group open every day from 08:00 to 20:00 with one line', () => {
    expect(emptyGroup(3)).toMatchObject({ id: '3', lines: [{ inDirection: 'A' }], hours: { sunday: '08:00-20:00' } });
  });

  test('reads the role a token shows: admin by its groups, ingest by its scope, else viewer', () => {
    const token = (payload: unknown) => `h.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.s`;
    expect(roleOfToken(token({ 'cognito:groups': ['viewer', 'admin'] }))).toBe('admin');
    expect(roleOfToken(token({ scope: 'lrs/ingest' }))).toBe('ingest');
    expect(roleOfToken(token({}))).toBe('viewer');
    expect(roleOfToken('not a token')).toBe('viewer');
  });
});
