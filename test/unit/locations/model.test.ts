import { toLocationResponse } from '#shared/locations/model';
import {
  locationItem,
  toLocation,
  groupSortKey,
  locationPartition,
  occupancyItem,
  revisionOf,
} from '#shared/locations/items';

describe('toLocationResponse', () => {
  test('answers the spec fields in the spec order with the name after the id, nulls for unset creators and ISO 8601 UTC with ms', () => {
    const stored = {
      updatedAt: '2024-05-01T10:00:00+02:00',
      createdAt: '2024-05-01T08:00:00Z',
      timezone: 'UTC',
      type: 'store',
      organizationId: 'o',
      name: 'Lisbon',
      id: 'L1',
      extra: 1,
    } as never;
    const response = toLocationResponse(stored);
    expect(JSON.stringify(response)).toBe(
      '{"id":"L1","name":"Lisbon","organizationId":"o","type":"store","timezone":"UTC","createdBy":null,"updatedBy":null,"createdAt":"2024-05-01T08:00:00.000Z","updatedAt":"2024-05-01T08:00:00.000Z"}',
    );
  });
});

describe('the single-table layout', () => {
  test("keeps a location under its organization's partition and round-trips it", () => {
    const location = {
      id: 'L1',
      name: 'Lisbon',
      organizationId: 'o',
      type: 't',
      timezone: 'UTC',
      createdBy: 'u',
      updatedBy: null,
      createdAt: 'c',
      updatedAt: 'u',
    };
    expect(locationItem(location, 4)).toMatchObject({ PK: 'ORG#o', SK: 'LOC#L1', kind: 'location', revision: 4 });
    expect(toLocation(locationItem(location, 4))).toEqual(location);
  });

  test('calls a location stored before names existed by its id, and counts its revision as 0', () => {
    const { name: _, ...unnamed } = locationItem(
      {
        id: 'L1',
        name: 'x',
        organizationId: 'o',
        type: 't',
        timezone: 'UTC',
        createdBy: null,
        updatedBy: null,
        createdAt: 'c',
        updatedAt: 'u',
      },
      0,
    );
    const { revision: __, ...legacy } = unnamed;
    expect(toLocation(legacy as never).name).toBe('L1');
    expect(revisionOf(legacy)).toBe(0);
  });

  test('orders sensor groups numerically under the location partition and gives cache entries a TTL', () => {
    expect(locationPartition('o', 'L1')).toBe('ORG#o#LOC#L1');
    expect([groupSortKey(10), groupSortKey(9)].sort()).toEqual(['GRP#0000000009', 'GRP#0000000010']);
    const item = occupancyItem({
      organizationId: 'o',
      locationId: 'L1',
      sensorGroupId: 3,
      name: 'n',
      occupancy: 1,
      openedAt: 'x',
      refreshedAt: '2024-01-01T00:00:00.000Z',
    });
    expect(item).toMatchObject({
      PK: 'ORG#o#LOC#L1',
      SK: 'OCC#0000000003',
      kind: 'occupancy',
      expiresAt: 1704067200 + 86400,
    });
  });
});
