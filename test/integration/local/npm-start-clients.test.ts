import { type LocalService, startLocalService } from '../../../bin/dev/local-service';

/**
 * `npm start` as HTTP clients other than curl meet it: Node's own global fetch (undici, which
 * behaves as browsers do) against the seeded server.
 */
let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});

afterAll(() => service?.stop());

const auth = () => ({ authorization: `Bearer ${service.token}` });

describe('npm start with fetch', () => {
  test('answers 304 with no body to fetch sending back the ETag of GET /locations (fetch adds Cache-Control: no-cache)', async () => {
    // Prepare
    const first = await fetch(`${service.url}/locations`, { headers: auth() });
    const etag = first.headers.get('etag');
    expect([first.status, etag]).toEqual([200, expect.stringMatching(/^W\//)]);
    // Act
    const again = await fetch(`${service.url}/locations`, { headers: { ...auth(), 'if-none-match': etag! } });
    // Assess
    expect([again.status, await again.text(), again.headers.get('etag')]).toEqual([304, '', etag]);
  });
});
