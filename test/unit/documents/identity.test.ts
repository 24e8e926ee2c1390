import { parseDocument } from '#shared/documents/documents';
import { canonicalJson, documentIdentity } from '#shared/documents/identity';

/** What identity.ts documents, from SHA-256 digests taken apart (`printf ... | sha256sum`). */
const expected = (identityHex: string, contentHex: string) => ({
  id: Buffer.from(identityHex.slice(0, 32), 'hex').toString('base64url'),
  key: BigInt.asIntN(64, BigInt(`0x${identityHex.slice(0, 16)}`)),
  content: BigInt.asIntN(64, BigInt(`0x${contentHex.slice(0, 16)}`)),
});

describe('documentIdentity', () => {
  test('is the digests of the organization, collection and id, and of the canonical content: stored identities stay valid', () => {
    // Prepare: canonical content
    // {"crossedPaths":[{"end":"A","id":"n","start":"B"}],"id":"cam-7/42","label":"car","locationId":"loc","organizationId":"org","timestamp":1709251200000}
    const withId = parseDocument('movementEvents', {
      id: 'cam-7/42',
      organizationId: 'org',
      locationId: 'loc',
      timestamp: '2024-03-01T01:00:00+01:00',
      label: 'car',
      crossedPaths: [{ id: 'n', end: 'A' }],
    });
    // canonical content {"label":"bus","locationId":"loc","organizationId":"org","timestamp":1711929600000}
    const withoutId = parseDocument('movementEvents', {
      organizationId: 'org',
      locationId: 'loc',
      timestamp: '2024-04-01T00:00:00Z',
      label: 'bus',
    });
    // Act
    const identities = [documentIdentity('movementEvents', withId), documentIdentity('movementEvents', withoutId)];
    // Assess: sha256('org\0movementEvents\0id\0cam-7/42'), sha256('content\0movementEvents\0' + content);
    // sha256('org\0movementEvents\0content\0' + content), sha256('content\0movementEvents\0' + content)
    expect(identities).toEqual([
      expected(
        '52ff7ac1ca4099f80c32fc53c83f53e0e25d54517624531ec8e83db2b4d7f36e',
        '5cf38c55a965a7015fd371109fc7bba1881c92d8d29391399594267e4b3a8031',
      ),
      expected(
        'aaf2467225a885caa1d0c42968b8aee97594f8c545a6e22ddee9a61f4d239618',
        '1ace3125bd877dd45f007a2221dc72b8e6782637777e7d7e836cc92ff384e052',
      ),
    ]);
  });
});

describe('canonicalJson', () => {
  test('sorts keys at every level, keeps array order, leaves undefined members out', () => {
    // Integer-like keys first, in numeric order, as any object enumerates them (stored identities were made so).
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [{ y: 1, x: 2 }, 3] }, 10: 'x', 2: 'y' })).toBe(
      '{"2":"y","10":"x","a":{"c":[{"x":2,"y":1},3]},"b":1}',
    );
    // Already in order: written as it is, undefined members and undefined array items as JSON writes them.
    expect(canonicalJson({ a: [undefined, { b: undefined, c: null }], z: 'z' })).toBe(
      '{"a":[null,{"c":null}],"z":"z"}',
    );
  });

  test('writes a Date or a boxed value as its own keys and calls an own toJSON, as the sorted copy always did', () => {
    expect(
      canonicalJson({ a: new Date(0), b: { toJSON: () => 'x', k: 1 }, c: Object.assign(new String('s'), { p: 1 }) }),
    ).toBe('{"a":{},"b":"x","c":{"0":"s","p":1}}');
  });

  test('finds the documents parseDocument builds already in canonical order, for every collection', () => {
    // Every field of each collection, given in an order other than the sorted one.
    const documents = [
      parseDocument('movementEvents', {
        timestamp: '2024-03-01T00:00:00Z',
        polygons: [{ value: 2, id: 'p' }],
        crossedPaths: [{ end: 'B', id: 'n' }],
        label: 'car',
        trackingCameraId: 'c',
        locationId: 'loc',
        organizationId: 'org',
        id: 'i',
      }),
      parseDocument('parkingLotStats', {
        total: 3,
        free: 1,
        occupied: 2,
        parkingLotId: 'lot',
        timestamp: '2024-03-01T00:00:00Z',
        locationId: 'loc',
        organizationId: 'org',
        id: 'i',
      }),
      parseDocument('parkingEvents', {
        startingTimestamp: '2024-03-01T00:00:00Z',
        spotId: 's',
        duration: 5,
        cameraId: 'c',
        parkingLotId: 'lot',
        timestamp: '2024-03-01T00:10:00Z',
        locationId: 'loc',
        organizationId: 'org',
        id: 'i',
      }),
    ];
    for (const document of documents) expect(JSON.stringify(document)).toBe(canonicalJson(document));
  });
});
