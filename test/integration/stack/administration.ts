import type { AsyncInvocation, CognitoControlPlane } from './aws-endpoints';
import type { StackUnderTest } from './machine-clients';

/** What the administration tests need besides the machine-client tests' view of the stack. */
export interface AdministeredStack extends Omit<StackUnderTest, 'call'> {
  readonly call: (
    method: string,
    path: string,
    options?: {
      body?: string;
      headers?: Record<string, string>;
      query?: Record<string, string>;
      groups?: readonly string[];
      sub?: string;
      locations?: readonly string[];
    },
  ) => Promise<{ status: number; headers: Record<string, string>; body: string }>;
  /** The asynchronous Lambda invocations the stand-in answered (./aws-endpoints.ts). */
  readonly invocations: () => readonly AsyncInvocation[];
  /** The Cognito control plane the ingest-clients function creates app clients in. */
  readonly cognito: () => CognitoControlPlane;
  readonly refreshFunctionId: () => string;
}

/**
 * The administration API from the synthesized assets: an admin creates a location (the locations
 * function's asset, one transaction on the table), a viewer cannot; the creation invokes the refresh
 * function's asset for it; an admin registers a gateway (the ingest-clients function's asset, its
 * Cognito calls answered by the stand-in), the gateway posts events for the new location through the
 * ingest route's authorizer; after the refresh rule's target runs, live shows the utilization. Every
 * number by hand: 3 in and 1 out of a room for 4 people is 2 ÷ 4 = 0.5.
 */
export function administrationTests(stack: AdministeredStack): void {
  describe('the administration API, from the assets', () => {
    const hours = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
        d,
        [{ open: '00:00', close: '24:00' }],
      ]),
    );
    const annex = (capacity: number) =>
      JSON.stringify({
        id: 'annex',
        name: 'The annex',
        type: 'venue',
        timezone: 'UTC',
        sensorGroups: [
          {
            id: 1,
            name: 'Annex room',
            capacity,
            lines: [{ trackingCameraId: 'cam-annex', lineId: 'door', inDirection: 'A' }],
            openingHours: hours,
          },
        ],
      });
    const json = { 'content-type': 'application/json' };
    const admin = { groups: ['admin'], sub: 'admin-1' };
    let clientId = '';

    it('refuses a viewer’s POST /locations with 403 problem+json, and writes nothing', async () => {
      const refused = await stack.call('POST', '/locations', { body: annex(4), headers: json });
      expect([refused.status, refused.headers['content-type'], JSON.parse(refused.body).type]).toEqual([
        403,
        'application/problem+json',
        '/problems#forbidden',
      ]);
      expect((await stack.call('GET', '/locations/annex')).status).toBe(404);
    });

    it('creates a location for an admin (201, ETag "1"), answers its name and capacity, and invokes the refresh function for it at once', async () => {
      const created = await stack.call('POST', '/locations', { body: annex(4), headers: json, ...admin });
      expect([created.status, created.headers.etag, created.headers.location]).toEqual([
        201,
        '"1"',
        '/locations/annex',
      ]);
      const read = JSON.parse((await stack.call('GET', '/locations/annex')).body) as {
        name: string;
        createdBy: string;
        sensorGroups: { capacity: number }[];
      };
      expect([read.name, read.createdBy, read.sensorGroups[0]!.capacity]).toEqual(['The annex', 'admin-1', 4]);
      const invocation = stack.invocations().find((i) => i.functionName === stack.refreshFunctionId());
      expect(invocation?.payload).toEqual({
        source: 'lrs.locations',
        locations: [{ organizationId: stack.org, locationId: 'annex' }],
      });
      // The refresh of that one location, run from its asset: the annex is open and holds nobody yet.
      expect(await invocation!.done).toMatchObject({ locations: 1, refreshedLocations: 1, failedLocations: 0 });
      const live = await stack.call('GET', '/locations/annex/insights/live', { query: { filter: 'occupancy' } });
      expect(JSON.parse(live.body)).toEqual({
        insights: {
          occupancy: [{ sensorGroup: { id: 1, name: 'Annex room' }, occupancy: 0, capacity: 4, utilization: 0 }],
        },
      });
    });

    it('registers a gateway for an admin through POST /ingest-clients (a Cognito app client with the ingest scope), and lists it', async () => {
      const registered = await stack.call('POST', '/ingest-clients', {
        body: JSON.stringify({ name: 'Annex gateway' }),
        headers: json,
        ...admin,
      });
      expect(registered.status).toBe(201);
      const answer = JSON.parse(registered.body) as {
        clientId: string;
        clientSecret: string;
        organizationId: string;
        scope: string;
        tokenUrl: string;
      };
      clientId = answer.clientId;
      expect(stack.cognito().clients.get(clientId)).toEqual({
        name: 'Annex gateway',
        secret: answer.clientSecret,
        userPoolId: stack.userPoolId,
      });
      expect([answer.organizationId, answer.scope, answer.tokenUrl]).toEqual([
        stack.org,
        'lrs/ingest',
        expect.stringMatching(/^https:\/\/.+\/oauth2\/token$/),
      ]);
      const listed = JSON.parse((await stack.call('GET', '/ingest-clients', admin)).body) as {
        clients: { clientId: string; revokedAt: string | null }[];
      };
      expect(listed.clients.find((c) => c.clientId === clientId)).toMatchObject({ revokedAt: null });
      expect((await stack.call('GET', '/ingest-clients')).status).toBe(403);
    });

    it('takes the gateway’s events for the new location, and after the refresh rule’s target ran live shows the utilization: 2 of 4', async () => {
      // The token as Cognito issues it: the trigger's asset adds the organization of the client registered above.
      const tokenEvent = {
        version: '3',
        triggerSource: 'TokenGeneration_ClientCredentials',
        region: stack.region,
        userPoolId: stack.userPoolId,
        userName: clientId,
        callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId },
        request: {
          userAttributes: {},
          groupConfiguration: { groupsToOverride: [], iamRolesToOverride: [] },
          scopes: ['lrs/ingest'],
        },
        response: { claimsAndScopeOverrideDetails: null },
      };
      const answered = await stack.fn(stack.preTokenFunctionId()).invoke<{
        response: {
          claimsAndScopeOverrideDetails: { accessTokenGeneration: { claimsToAddOrOverride: Record<string, string> } };
        };
      }>(tokenEvent);
      const token = await stack
        .issuer()
        .accessToken(
          clientId,
          'lrs/ingest',
          answered.response.claimsAndScopeOverrideDetails.accessTokenGeneration.claimsToAddOrOverride,
        );
      const batch = [
        ['A', 7],
        ['A', 8],
        ['A', 9],
        ['B', 10],
      ]
        .map(([end, ms]) =>
          JSON.stringify({
            ...stack.crossing(stack.today(ms as number), 'person', end as 'A' | 'B', stack.org, 'annex'),
            trackingCameraId: 'cam-annex',
          }),
        )
        .join('\n');
      const posted = await stack.api().request({
        method: 'POST',
        path: '/ingest/movementEvents',
        claims: {},
        body: batch,
        headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${token}` },
      });
      expect([posted.status, JSON.parse(posted.body)]).toEqual([200, { accepted: 4, duplicates: 0, rejected: [] }]);
      await stack.refreshIndices();
      await stack.refreshOccupancy();
      const live = await stack.call('GET', '/locations/annex/insights/live', { query: { filter: 'occupancy' } });
      expect(JSON.parse(live.body)).toEqual({
        insights: {
          occupancy: [{ sensorGroup: { id: 1, name: 'Annex room' }, occupancy: 2, capacity: 4, utilization: 0.5 }],
        },
      });
      const clients = JSON.parse((await stack.call('GET', '/ingest-clients', admin)).body) as {
        clients: { clientId: string; lastUsedAt: string | null }[];
      };
      expect(clients.clients.find((c) => c.clientId === clientId)?.lastUsedAt).toMatch(/^\d{4}-/);
    });

    it('changes the capacity with If-Match only (428, then 200 with updatedBy), and live divides by the new one at once', async () => {
      const without = await stack.call('PUT', '/locations/annex', { body: annex(8), headers: json, ...admin });
      const changed = await stack.call('PUT', '/locations/annex', {
        body: annex(8),
        headers: { ...json, 'if-match': '"1"' },
        ...admin,
        sub: 'admin-2',
      });
      const stale = await stack.call('PUT', '/locations/annex', {
        body: annex(10),
        headers: { ...json, 'if-match': '"1"' },
        ...admin,
      });
      expect([without.status, changed.status, changed.headers.etag, stale.status]).toEqual([428, 200, '"2"', 412]);
      expect(JSON.parse(changed.body)).toMatchObject({ updatedBy: 'admin-2', sensorGroups: [{ capacity: 8 }] });
      const live = await stack.call('GET', '/locations/annex/insights/live', { query: { filter: 'occupancy' } });
      expect(JSON.parse(live.body)).toEqual({
        insights: {
          occupancy: [{ sensorGroup: { id: 1, name: 'Annex room' }, occupancy: 2, capacity: 8, utilization: 0.25 }],
        },
      });
      const log = JSON.parse((await stack.call('GET', '/locations/annex/changes')).body) as {
        changes: { revision: number; by: string; changes: unknown[] }[];
      };
      expect(log.changes.map((c) => [c.revision, c.by])).toEqual([
        [2, 'admin-2'],
        [1, 'admin-1'],
      ]);
      expect(log.changes[0]!.changes).toEqual([{ path: '/sensorGroups/1/capacity', before: 4, after: 8 }]);
    });

    it('shows a token limited to the hall neither the annex nor its documents', async () => {
      const scoped = { locations: ['hall'] };
      const list = JSON.parse((await stack.call('GET', '/locations', scoped)).body) as { id: string }[];
      expect(list.map((l) => l.id)).toEqual(['hall']);
      expect(
        (await stack.call('GET', '/locations/annex/insights/live', { query: { filter: 'occupancy' }, ...scoped }))
          .status,
      ).toBe(404);
      const byLocation = JSON.stringify({
        source: 'movementEvents',
        aggregations: [{ type: 'terms', field: 'locationId' }],
      });
      const all = JSON.parse(
        (await stack.call('POST', '/reports:query', { body: byLocation, headers: json })).body,
      ) as Record<string, number>;
      const mine = JSON.parse(
        (await stack.call('POST', '/reports:query', { body: byLocation, headers: json, ...scoped })).body,
      ) as Record<string, number>;
      expect(all.annex).toBe(4);
      expect(Object.keys(mine)).toEqual(['hall']);
      expect(
        (
          await stack.call('POST', '/reports:query', {
            body: JSON.stringify({ ...JSON.parse(byLocation), locationIds: ['annex'] }),
            headers: json,
            ...scoped,
          })
        ).status,
      ).toBe(403);
    });

    it('revokes the gateway (204, its app client deleted) and deletes the location (204, then 404)', async () => {
      expect((await stack.call('DELETE', `/ingest-clients/${clientId}`, admin)).status).toBe(204);
      expect(stack.cognito().deleted).toContain(clientId);
      expect((await stack.call('DELETE', '/locations/annex', admin)).status).toBe(204);
      expect((await stack.call('GET', '/locations/annex')).status).toBe(404);
      expect((await stack.call('POST', '/locations', { body: annex(4), headers: json, ...admin })).status).toBe(409);
    });
  });
}
