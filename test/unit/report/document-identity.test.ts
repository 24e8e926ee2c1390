import { parseDocument } from '#shared/report/documents';
import { documentIdentity } from '#shared/report/document-identity';

/** What document-identity.ts documents, from SHA-256 digests taken apart (`printf ... | sha256sum`). */
const expected = (identityHex: string, contentHex: string) => ({
  id: Buffer.from(identityHex.slice(0, 32), 'hex').toString('base64url'),
  key: BigInt.asIntN(64, BigInt(`0x${identityHex.slice(0, 16)}`)),
  content: BigInt.asIntN(64, BigInt(`0x${contentHex.slice(0, 16)}`)),
});

describe('documentIdentity', () => {
  test('is the digests of the organization, collection and id, and of the canonical content: stored identities stay valid', () => {
    // Prepare: canonical content {"crossedPaths":[{"end":"A","id":"n","start":"B"}],"id":"cam-7/42","label":"car","locationId":"loc","organizationId":"org","timestamp":1709251200000}
    const withId = parseDocument('movementEvents', { id: 'cam-7/42', organizationId: 'org', locationId: 'loc', timestamp: '2024-03-01T01:00:00+01:00', label: 'car', crossedPaths: [{ id: 'n', end: 'A' }] });
    // canonical content {"label":"bus","locationId":"loc","organizationId":"org","timestamp":1711929600000}
    const withoutId = parseDocument('movementEvents', { organizationId: 'org', locationId: 'loc', timestamp: '2024-04-01T00:00:00Z', label: 'bus' });
    // Act
    const identities = [documentIdentity('movementEvents', withId), documentIdentity('movementEvents', withoutId)];
    // Assess: sha256('org\0movementEvents\0id\0cam-7/42'), sha256('content\0movementEvents\0' + content);
    // sha256('org\0movementEvents\0content\0' + content), sha256('content\0movementEvents\0' + content)
    expect(identities).toEqual([
      expected('52ff7ac1ca4099f80c32fc53c83f53e0e25d54517624531ec8e83db2b4d7f36e', '5cf38c55a965a7015fd371109fc7bba1881c92d8d29391399594267e4b3a8031'),
      expected('aaf2467225a885caa1d0c42968b8aee97594f8c545a6e22ddee9a61f4d239618', '1ace3125bd877dd45f007a2221dc72b8e6782637777e7d7e836cc92ff384e052'),
    ]);
  });
});
